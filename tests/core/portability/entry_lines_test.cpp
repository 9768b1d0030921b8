// The prefix walk reads the same debug lines as the full decoder, from a fraction of the bytes.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "inductor/graph_entry.hpp"
#include "portability/entry_lines.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln::portability;
namespace fs = std::filesystem;

std::vector<std::string> strings(const std::vector<std::string_view>& v) { return {v.begin(), v.end()}; }

std::vector<fs::path> entries(const fs::path& dir) {
    std::vector<fs::path> out;
    for (const auto& f : fs::recursive_directory_iterator(dir))
        if (f.is_regular_file()) out.push_back(f.path());
    std::sort(out.begin(), out.end());
    return out;
}

TEST(EntryLines, FxEntriesMatchTheFullDecoder) {
    std::uint64_t read = 0, total = 0;
    auto files = entries(kiln::test::h100_h200_root() / "fxgraph");
    ASSERT_EQ(files.size(), 19u);
    for (const auto& f : files) {
        auto full = kiln::inductor::load_graph_entry(f);
        ASSERT_TRUE(full.ok()) << full.error().str();
        auto fast = read_entry_lines(f, EntryKind::fx_graph);
        ASSERT_TRUE(fast.ok()) << fast.error().str();
        EXPECT_FALSE(fast->decoded) << f;
        ASSERT_EQ(fast->lists.size(), 1u) << f;
        EXPECT_EQ(strings(fast->lists[0]), full->debug_lines()) << f;
        EXPECT_GT(fast->lists[0].size(), 500u);
        read += fast->bytes_read;
        total += fs::file_size(f);
    }
    EXPECT_LT(read * 10, total) << "the walk should read a small prefix of the entries";
}

TEST(EntryLines, AotEntriesGiveTheInnerGraphsLines) {
    std::size_t with_backward = 0;
    auto files = entries(kiln::test::h100_h200_root() / "aotautograd");
    ASSERT_EQ(files.size(), 17u);
    for (const auto& f : files) {
        auto full = kiln::inductor::load_graph_entry(f);
        ASSERT_TRUE(full.ok());
        auto fast = read_entry_lines(f, EntryKind::aot_autograd);
        ASSERT_TRUE(fast.ok()) << fast.error().str();
        EXPECT_FALSE(fast->decoded);
        ASSERT_GE(fast->lists.size(), 1u);
        EXPECT_EQ(strings(fast->lists[0]), full->forward_debug_lines()) << f;
        if (full->backward_fx_key()) {
            ++with_backward;
            ASSERT_EQ(fast->lists.size(), 2u) << f;
            EXPECT_EQ(strings(fast->lists[1]), full->backward_debug_lines()) << f;
        } else {
            EXPECT_EQ(fast->lists.size(), 1u) << f;
        }
    }
    EXPECT_GT(with_backward, 0u);  // the MLP training step has a backward graph
}

TEST(EntryLines, TruncatedEntryFallsBackToTheDecodersError) {
    kiln::test::ScratchDir dir("entry-lines-truncated");
    auto files = entries(kiln::test::h100_root() / "fxgraph");
    std::string bytes = kiln::test::read_file(files[0]);
    fs::path cut = dir.path() / "cut";
    for (std::size_t keep : {std::size_t{30000}, bytes.size() - 1}) {
        std::ofstream(cut, std::ios::binary) << bytes.substr(0, keep);
        auto r = read_entry_lines(cut, EntryKind::fx_graph);
        if (keep == 30000) {  // cut inside the debug lines: the walk needs more, the decoder reports the truncation
            ASSERT_FALSE(r.ok());
            EXPECT_NE(r.error().str().find(cut.string()), std::string::npos) << r.error().str();
        } else {  // cut after them: the walk has what it needs and never sees the end
            ASSERT_TRUE(r.ok()) << r.error().str();
            EXPECT_FALSE(r->decoded);
        }
    }
}

TEST(EntryLines, RelativeToADirectoryAndIntoAScratchBuffer) {
    fs::path root = kiln::test::h100_root();
    int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY);
    ASSERT_GE(fd, 0);
    std::string scratch;
    for (const auto& f : entries(root / "aotautograd")) {
        auto abs = read_entry_lines(f, EntryKind::aot_autograd);
        auto rel = read_entry_lines(fs::relative(f, root), EntryKind::aot_autograd, &scratch, fd);
        ASSERT_TRUE(rel.ok()) << rel.error().str();
        EXPECT_EQ(rel->storage, nullptr);  // the lines view `scratch`
        ASSERT_EQ(rel->lists.size(), abs->lists.size());
        for (std::size_t i = 0; i < rel->lists.size(); ++i) EXPECT_EQ(strings(rel->lists[i]), strings(abs->lists[i]));
    }
    // A truncated entry, relative to the directory: the full decoder opens it through /proc/self/fd.
    kiln::test::ScratchDir dir("entry-lines-dirfd");
    fs::path aot = entries(root / "aotautograd")[0];
    std::string bytes = kiln::test::read_file(aot);
    std::ofstream(dir.path() / "cut", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    int dfd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
    auto cut = read_entry_lines("cut", EntryKind::aot_autograd, &scratch, dfd);
    ASSERT_FALSE(cut.ok());
    EXPECT_NE(cut.error().str().find("/proc/self/fd/"), std::string::npos) << cut.error().str();
    ::close(dfd);
    ::close(fd);
}

TEST(EntryLines, UnknownOpcodeFallsBackToTheFullDecoder) {
    std::vector<std::vector<std::string_view>> lists;
    std::string why;
    EXPECT_EQ(walk_entry_lines(std::string("\x80\x04\xff", 3), true, EntryKind::fx_graph, lists, why),
              WalkResult::unsupported);
    EXPECT_NE(why.find("unknown opcode"), std::string::npos);
    EXPECT_EQ(walk_entry_lines(std::string("\x80\x04\x8c\x05", 4), false, EntryKind::fx_graph, lists, why),
              WalkResult::need_more);
    kiln::test::ScratchDir dir("entry-lines-garbage");
    fs::path junk = dir.path() / "junk";
    std::ofstream(junk, std::ios::binary) << std::string("\x80\x04\xff\xff", 4);
    auto r = read_entry_lines(junk, EntryKind::fx_graph);
    ASSERT_FALSE(r.ok());  // the full decoder's verdict, with the path
    EXPECT_NE(r.error().str().find("junk"), std::string::npos) << r.error().str();
}

}  // namespace
