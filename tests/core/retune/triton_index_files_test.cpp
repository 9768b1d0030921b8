// Issue 42, items 2 and 6: reading a Triton key dir (the inventory behind `retune --list`) opens its
// `.ptx`, `.source` and `.ttir` as util/regular_file does: a FIFO in place of one never blocks (it
// counts as missing), and the reads leave every atime alone, so a listing never changes what
// `evict --older-than` picks.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "atime_check.hpp"
#include "opened_dir.hpp"
#include "retune/triton_index.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace kiln::retune;

namespace {

// A copy of the H100 fixture's first Triton key dir.
fs::path copy_key_dir(const kiln::test::ScratchDir& dir) {
    const fs::path triton = kiln::test::h100_root() / "triton" / "0";
    fs::path first;
    for (const auto& e : fs::directory_iterator(triton))
        if (first.empty() || e.path() < first) first = e.path();
    const fs::path copy = dir.path() / first.filename();
    fs::copy(first, copy, fs::copy_options::recursive);
    return copy;
}

// Replaces `file` with a FIFO nobody writes.
void make_fifo(const fs::path& file) {
    fs::remove(file);
    ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0) << file;
}

}  // namespace

// In a child under a 20 s alarm: a hang fails the test (killed by SIGALRM) instead of blocking ctest.
TEST(RetuneTritonIndexFiles, AFifoInPlaceOfThePtxOrSourceDoesNotBlock) {
    kiln::test::ScratchDir dir("triton-index-fifo");
    const fs::path key = copy_key_dir(dir);
    auto whole = read_key_dir(kiln::test::open_dir(key), "");
    ASSERT_TRUE(whole.ok()) << whole.error().str();
    ASSERT_FALSE(whole->binary.binary.ptx.empty());
    ASSERT_FALSE(whole->module_key.empty());
    make_fifo(key / "triton_mm.ptx");
    make_fifo(key / "triton_mm.source");
    EXPECT_EXIT(
        {
            ::alarm(20);
            auto k = read_key_dir(kiln::test::open_dir(key), "");
            if (!k.ok()) std::_Exit(2);
            // The FIFO is no PTX; the cubin beside it still is the binary; the module is named by the .ttir.
            if (!k->binary.binary.ptx.empty() || !k->binary.ptx_target.empty()) std::_Exit(3);
            if (k->binary.binary.cubin.empty()) std::_Exit(4);
            if (k->module_key != whole->module_key) std::_Exit(5);
            std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "");
    // A FIFO in place of the cubin too: no binary at all, and no hang.
    make_fifo(key / "triton_mm.cubin");
    EXPECT_EXIT(
        {
            ::alarm(20);
            auto k = read_key_dir(kiln::test::open_dir(key), "");
            std::_Exit(k.ok() && k->binary.binary.cubin.empty() ? 0 : 6);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(RetuneTritonIndexFiles, ReadingAKeyDirLeavesAtimesAlone) {
    kiln::test::ScratchDir dir("triton-index-atime");
    const fs::path key = copy_key_dir(dir);
    ASSERT_TRUE(kiln::test::set_old_atimes(key));
    ASSERT_TRUE(kiln::test::plain_read_moves_atime(key / "triton_mm.ptx"))
        << "this file system does not update atimes on read";
    auto k = read_key_dir(kiln::test::open_dir(key), "");
    ASSERT_TRUE(k.ok()) << k.error().str();
    ASSERT_FALSE(k->binary.ptx_target.empty());  // the .ptx and the .source were read
    ASSERT_FALSE(k->module_key.empty());
    auto moved = kiln::test::moved_atimes(key);
    EXPECT_TRUE(moved.empty()) << "read_key_dir changed the atime of " << moved.begin()->first;
}
