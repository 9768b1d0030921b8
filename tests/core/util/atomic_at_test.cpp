// write_atomic_at: the atomic write through an open directory (bundle unpack), with and without replacing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_support.hpp"
#include "util/atomic_file.hpp"

namespace kiln::codecache {
namespace {

namespace fs = std::filesystem;

TEST(WriteAtomicAt, WritesReplacesOrLeavesAlone) {
    test::ScratchDir dir("atomic-at");
    int fd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(write_atomic_at(fd, "f", "one", "f").ok());
    EXPECT_EQ(test::read_file(dir.path() / "f"), "one");
    ASSERT_TRUE(write_atomic_at(fd, "f", "two", "f").ok());
    EXPECT_EQ(test::read_file(dir.path() / "f"), "two");
    auto kept = write_atomic_at(fd, "f", "three", "f", /*replace=*/false);
    ASSERT_FALSE(kept.ok());
    EXPECT_EQ(kept.error().code, Errc::busy);
    EXPECT_EQ(test::read_file(dir.path() / "f"), "two");
    // A symlink in the way is replaced as a link (its target untouched), never written through.
    { std::ofstream(dir.path() / "target") << "outside"; }
    fs::create_symlink(dir.path() / "target", dir.path() / "link");
    ASSERT_TRUE(write_atomic_at(fd, "link", "new", "link").ok());
    EXPECT_EQ(test::read_file(dir.path() / "target"), "outside");
    EXPECT_FALSE(fs::is_symlink(dir.path() / "link"));
    ::close(fd);
    std::size_t n = 0;
    for (auto& e : fs::directory_iterator(dir.path())) n += e.path().filename().string()[0] == '.';
    EXPECT_EQ(n, 0u);  // no temporary left behind
}

// write_new_at (a private tree: materialize_blob): a new file at its name, never one that exists and
// never through a symlink, which stays as it was.
TEST(WriteNewAt, CreatesOnlyNewFiles) {
    test::ScratchDir dir("new-at");
    int fd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(write_new_at(fd, "f", "one", "f").ok());
    ASSERT_TRUE(write_new_at(fd, "empty", "", "empty").ok());
    EXPECT_EQ(test::read_file(dir.path() / "f"), "one");
    EXPECT_EQ(fs::file_size(dir.path() / "empty"), 0u);
    auto again = write_new_at(fd, "f", "two", "f");
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code, Errc::busy);
    EXPECT_EQ(test::read_file(dir.path() / "f"), "one");
    fs::create_symlink(dir.path() / "target", dir.path() / "dangling");
    auto link = write_new_at(fd, "dangling", "through", "dangling");
    ASSERT_FALSE(link.ok());
    EXPECT_EQ(link.error().code, Errc::busy);
    EXPECT_FALSE(fs::exists(dir.path() / "target"));
    ::close(fd);
}

// Issue 29 item 8: a hard link planted at the name the temporary used to have (".<pid>.<tid>.tmp")
// must not be written through: the file it points to stays as it was.
TEST(WriteAtomicAt, NeverWritesThroughAPlantedHardLink) {
    test::ScratchDir dir("atomic-link");
    fs::create_directories(dir.path() / "cache");
    fs::create_directories(dir.path() / "outside");
    const fs::path victim = dir.path() / "outside" / "victim";
    { std::ofstream(victim) << "precious"; }
    fs::create_hard_link(victim, dir.path() / "cache" / (temp_suffix() + ".tmp"));
    ASSERT_TRUE(write_atomic(dir.path() / "cache" / "f", "new content").ok());
    EXPECT_EQ(test::read_file(dir.path() / "cache" / "f"), "new content");
    EXPECT_EQ(test::read_file(victim), "precious");
    int fd = ::open((dir.path() / "cache").c_str(), O_RDONLY | O_DIRECTORY);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(write_atomic_at(fd, "g", "more", "g").ok());
    ::close(fd);
    EXPECT_EQ(test::read_file(victim), "precious");
}

}  // namespace
}  // namespace kiln::codecache
