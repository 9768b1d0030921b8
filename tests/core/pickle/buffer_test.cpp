// load_file: one read into one block, whatever the size; the block is a snapshot, so a writer that
// truncates or rewrites the file afterwards changes nothing Kiln holds (a mapping would SIGBUS).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "pickle/buffer.hpp"
#include "pickle/decoder.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace kiln::pickle;

namespace {

void write(const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

// A protocol-4 pickle of one bytes value of `n` bytes: PROTO 4, BINBYTES8 n, payload, STOP.
std::string bytes_pickle(std::uint64_t n, char fill) {
    std::string s = "\x80\x04\x8e";
    for (int k = 0; k < 8; ++k) s += static_cast<char>((n >> (8 * k)) & 0xff);
    s += std::string(n, fill);
    return s + ".";
}

}  // namespace

TEST(LoadFile, BytesEqualTheFileOnDisk) {
    const fs::path p = kiln::test::two_entries_root() / "fxgraph";
    for (const auto& e : fs::recursive_directory_iterator(p)) {
        if (!e.is_regular_file()) continue;
        auto buf = load_file(e.path());
        ASSERT_TRUE(buf.ok()) << buf.error().str();
        EXPECT_EQ(std::string(buf.value()->bytes()), kiln::test::read_file(e.path()));
        EXPECT_EQ(buf.value()->origin(), e.path().string());
    }
}

TEST(LoadFile, TruncatedOrRewrittenAfterLoadingChangesNothing) {
    kiln::test::ScratchDir dir("load-file-snapshot");
    const fs::path p = dir.path() / "entry";
    write(p, bytes_pickle(1 << 20, 'a'));
    auto doc = decode_file(p);
    ASSERT_TRUE(doc.ok()) << doc.error().str();
    const std::string_view payload = doc.value()->root()->text();
    // The writer truncates the file, then writes something else in its place.
    fs::resize_file(p, 0);
    write(p, bytes_pickle(10, 'b'));
    ASSERT_EQ(payload.size(), std::size_t{1} << 20);
    EXPECT_EQ(payload.find_first_not_of('a'), std::string_view::npos);
}

TEST(LoadFile, FilesOverSixtyFourMiBAreReadAndDecodedWithViews) {
    // 65 MiB: beyond the size that used to be mapped rather than read.
    kiln::test::ScratchDir dir("load-file-big");
    const fs::path p = dir.path() / "big";
    const std::uint64_t n = (std::uint64_t{65} << 20);
    write(p, bytes_pickle(n, 'z'));
    auto doc = decode_file(p);
    ASSERT_TRUE(doc.ok()) << doc.error().str();
    const auto& d = *doc.value();
    const std::string_view v = d.root()->text();
    ASSERT_EQ(v.size(), n);
    EXPECT_EQ(v.data(), d.bytes().data() + 11);  // a view into the one block, not a copy
    EXPECT_EQ(v.back(), 'z');
}

TEST(LoadFile, ClearErrorsForWhatIsNotARegularFile) {
    kiln::test::ScratchDir dir("load-file-errors");
    auto missing = load_file(dir.path() / "nope");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().str().find((dir.path() / "nope").string()), std::string::npos) << missing.error().str();

    auto directory = load_file(dir.path());
    ASSERT_FALSE(directory.ok());
    EXPECT_NE(directory.error().str().find("not a regular file"), std::string::npos) << directory.error().str();

    write(dir.path() / "empty", "");
    auto empty = load_file(dir.path() / "empty");
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty.value()->bytes().empty());
    auto doc = decode_file(dir.path() / "empty");
    ASSERT_FALSE(doc.ok());
    EXPECT_NE(doc.error().str().find("ended before STOP"), std::string::npos) << doc.error().str();
}
