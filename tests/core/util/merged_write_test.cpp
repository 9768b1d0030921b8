// MergedWrite: a read-merge-replace that merges again what another writer renamed in meanwhile
// (torch's timing cache: read, add, rename, no lock), and that follows no symlink.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.hpp"
#include "util/merged_write.hpp"

namespace kiln {
namespace {

namespace fs = std::filesystem;

// What torch's write_atomic does: a temporary beside the file, renamed over it.
void rename_in(const fs::path& file, const std::string& text) {
    const fs::path tmp = file.parent_path() / ("." + std::to_string(::getpid()) + ".other.tmp");
    { std::ofstream(tmp) << text; }
    fs::rename(tmp, file);
}

std::size_t hidden_entries(const fs::path& dir) {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string()[0] == '.';
    return n;
}

TEST(MergedWrite, CreatesOrMergesIntoTheFile) {
    test::ScratchDir d("merged-basic");
    const fs::path file = d.path() / "cache" / "f";
    auto w = MergedWrite::open(file, 1 << 20);
    ASSERT_TRUE(w.ok()) << w.error().str();
    EXPECT_FALSE(w->text().has_value());
    auto n =
        w->replace([](const std::optional<std::string>& cur) -> Result<std::string> { return cur.value_or("") + "a"; });
    ASSERT_TRUE(n.ok()) << n.error().str();
    EXPECT_EQ(*n, 0);
    EXPECT_EQ(test::read_file(file), "a");
    auto again = MergedWrite::open(file, 1 << 20);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again->text(), "a");
    ASSERT_TRUE(
        again->replace([](const std::optional<std::string>& cur) -> Result<std::string> { return *cur + "b"; }));
    EXPECT_EQ(test::read_file(file), "ab");
    EXPECT_EQ(hidden_entries(file.parent_path()), 0u);
}

// Another writer renames its version in after Kiln read the file: Kiln's rename must not drop it.
TEST(MergedWrite, AVersionRenamedInMeanwhileIsMergedToo) {
    test::ScratchDir d("merged-again");
    const fs::path file = d.path() / "f";
    { std::ofstream(file) << "base;"; }
    auto w = MergedWrite::open(file, 1 << 20);
    ASSERT_TRUE(w.ok());
    int calls = 0;
    auto n = w->replace([&](const std::optional<std::string>& cur) -> Result<std::string> {
        if (calls++ == 0) {
            EXPECT_EQ(&cur, &w->text());  // the version read first, the same object
            rename_in(file, "base;torch;");
        }
        return *cur + "kiln;";
    });
    ASSERT_TRUE(n.ok()) << n.error().str();
    EXPECT_EQ(*n, 1);
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(test::read_file(file), "base;torch;kiln;");
    // The same for a file that was absent when read and created meanwhile.
    fs::remove(file);
    auto fresh = MergedWrite::open(file, 1 << 20);
    ASSERT_TRUE(fresh.ok());
    calls = 0;
    ASSERT_TRUE(fresh->replace([&](const std::optional<std::string>& cur) -> Result<std::string> {
        if (calls++ == 0) rename_in(file, "torch;");
        return cur.value_or("") + "kiln;";
    }));
    EXPECT_EQ(test::read_file(file), "torch;kiln;");
    EXPECT_EQ(hidden_entries(d.path()), 0u);
}

TEST(MergedWrite, AnErrorOfTheMergeWritesNothing) {
    test::ScratchDir d("merged-error");
    const fs::path file = d.path() / "f";
    { std::ofstream(file) << "keep"; }
    auto w = MergedWrite::open(file, 1 << 20);
    ASSERT_TRUE(w.ok());
    auto n = w->replace(
        [](const std::optional<std::string>&) -> Result<std::string> { return make_error(Errc::parse, "no"); });
    ASSERT_FALSE(n.ok());
    EXPECT_EQ(test::read_file(file), "keep");
    EXPECT_EQ(hidden_entries(d.path()), 0u);
}

TEST(MergedWrite, FollowsNoSymlinkAtTheFileOrItsFolder) {
    test::ScratchDir d("merged-links");
    fs::create_directories(d.path() / "outside");
    { std::ofstream(d.path() / "outside" / "f") << "secret"; }
    fs::create_directories(d.path() / "root" / "cache");
    fs::create_symlink(d.path() / "outside" / "f", d.path() / "root" / "cache" / "f");
    auto file_link = MergedWrite::open(d.path() / "root" / "cache" / "f", 1 << 20);
    ASSERT_FALSE(file_link.ok());
    EXPECT_NE(file_link.error().message.find("symlink"), std::string::npos) << file_link.error().str();
    fs::create_directory_symlink(d.path() / "outside", d.path() / "root" / "cache2");
    auto dir_link = MergedWrite::open(d.path() / "root" / "cache2" / "g", 1 << 20);
    ASSERT_FALSE(dir_link.ok());
    EXPECT_NE(dir_link.error().message.find("symbolic link"), std::string::npos) << dir_link.error().str();
    EXPECT_EQ(test::read_file(d.path() / "outside" / "f"), "secret");
    EXPECT_FALSE(fs::exists(d.path() / "outside" / "g"));
}

}  // namespace
}  // namespace kiln
