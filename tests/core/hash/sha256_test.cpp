#include "hash/sha256.hpp"

#include <gtest/gtest.h>

using namespace kiln::hash;

TEST(Sha256, KnownDigest) {
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    Sha256 h;
    h.update("a").update("bc");
    EXPECT_EQ(to_hex(h.finish()), sha256_hex("abc"));
}

TEST(Base32, MatchesPython) {
    EXPECT_EQ(base32(""), "");
    EXPECT_EQ(base32("f"), "MY======");
    EXPECT_EQ(base32("foobar"), "MZXW6YTBOI======");
}

// Vectors computed with Python: base64.b32encode(hashlib.sha256(d).digest())[:51].lower()
TEST(InductorKeys, Sha256HashMatchesPython) {
    EXPECT_EQ(sha256_hash(""), "4oymiquy7qobjgx36tejs35zeqt24qpemsnzgtfeswmrw6csxbk");
    EXPECT_EQ(sha256_hash("hello"), "ftze3os7wcrq4jxihmvmlopctynrmhs4d6tuexttaqzwfe4ltas");
}

TEST(InductorKeys, CodeHashWithExtra) {
    EXPECT_EQ(code_hash("int main(){}", "g++ -O3"), "cd3yagqg3k63kfksdxtwbifpf5fh6edrvpcxnahoaiv7ktcleair");
    EXPECT_EQ(code_hash("hello"), "c" + sha256_hash("hello"));
}
