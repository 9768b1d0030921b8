#include "util/result.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

using namespace kiln;

static Result<int> parse_positive(int v) {
    if (v <= 0) return make_error(Errc::invalid_argument, "not positive", "arg", "pass a value > 0");
    return v;
}

static Result<int> doubled(int v) {
    KILN_TRY(int x, parse_positive(v));
    return 2 * x;
}

TEST(Result, ValueAndErrorPropagate) {
    EXPECT_EQ(*doubled(4), 8);
    auto r = doubled(-1);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::invalid_argument);
    EXPECT_EQ(r.error().str(), "arg: not positive (pass a value > 0)");
}

TEST(Result, ContextNests) {
    Error e = make_error(Errc::parse, "bad opcode", "offset 12");
    Error outer = std::move(e).with_context("file.pkl");
    EXPECT_EQ(outer.str(), "file.pkl: offset 12: bad opcode");
}

// io_error's `what` is an action ("read") or already a failure ("cannot open ...", "poll failed"): the
// message reads "cannot open the cache root: Not a directory", never "cannot open ... failed: ...".
TEST(Result, IoErrorWordingIsNotDoubled) {
    EXPECT_EQ(io_error("read", "f", EIO).message, std::string("read failed: ") + std::strerror(EIO));
    EXPECT_EQ(io_error("cannot open the cache root", "r", ENOTDIR).message,
              std::string("cannot open the cache root: ") + std::strerror(ENOTDIR));
    EXPECT_EQ(io_error("socketpair failed", "", EMFILE).message,
              std::string("socketpair failed: ") + std::strerror(EMFILE));
    EXPECT_EQ(io_error("cannot create", "x", EEXIST).message.find("failed"), std::string::npos);
}

// A full disk under the cache suggests evicting; a full temporary folder (where a blob is unpacked)
// suggests freeing it or pointing TMPDIR elsewhere, since evicting cache entries would not help.
TEST(Result, NoSpaceHintSaysWhichFolderIsFull) {
    ::setenv("TMPDIR", "/some/tmp", 1);
    Error tmp = io_error("write", "/some/tmp/kiln-blob-x1/inductor/fxgraph/ab/fab/e", ENOSPC);
    EXPECT_NE(tmp.hint.find("/some/tmp is full"), std::string::npos) << tmp.hint;
    EXPECT_NE(tmp.hint.find("TMPDIR"), std::string::npos) << tmp.hint;
    EXPECT_EQ(tmp.hint.find("evict"), std::string::npos) << tmp.hint;
    Error cache = io_error("write", "/home/u/cache/fxgraph/ab/x", ENOSPC);
    EXPECT_NE(cache.hint.find("kiln-cli evict"), std::string::npos) << cache.hint;
    Error beside = io_error("write", "/some/tmpfoo/x", ENOSPC);  // a name that only starts alike
    EXPECT_NE(beside.hint.find("kiln-cli evict"), std::string::npos) << beside.hint;
    ::unsetenv("TMPDIR");
}
