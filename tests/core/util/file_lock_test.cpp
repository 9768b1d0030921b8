// FileLock::acquire never creates a file through a symlink (issue 42 #5): a dangling
// locks/autotune-<hash>.lock link, or locks/ itself a link, made Kiln create a file at the target.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "test_support.hpp"
#include "util/file_lock.hpp"

namespace kiln {
namespace {

namespace fs = std::filesystem;

TEST(FileLockSafety, ADanglingLockSymlinkIsRefusedAndItsTargetNeverCreated) {
    test::ScratchDir d("lock-dangling");
    fs::create_directories(d.path() / "root" / "locks");
    fs::create_directories(d.path() / "outside");
    const fs::path target = d.path() / "outside" / "pwn";
    const fs::path lock = d.path() / "root" / "locks" / "autotune-abc.lock";
    fs::create_symlink(target, lock);
    auto held = FileLock::acquire(lock, std::chrono::milliseconds(100));
    ASSERT_FALSE(held.ok());
    EXPECT_EQ(held.error().code, Errc::invalid_argument) << held.error().str();
    EXPECT_NE(held.error().message.find("symbolic link"), std::string::npos) << held.error().str();
    EXPECT_EQ(held.error().context, lock.string());
    EXPECT_FALSE(fs::exists(target));
    EXPECT_TRUE(fs::is_symlink(lock));  // left as it is
}

TEST(FileLockSafety, ALockFolderThatIsASymlinkIsRefused) {
    test::ScratchDir d("lock-dir-link");
    fs::create_directories(d.path() / "root");
    fs::create_directories(d.path() / "outside");
    fs::create_directory_symlink(d.path() / "outside", d.path() / "root" / "locks");
    auto held = FileLock::acquire(d.path() / "root" / "locks" / "autotune-abc.lock", std::chrono::milliseconds(100));
    ASSERT_FALSE(held.ok());
    EXPECT_EQ(held.error().code, Errc::invalid_argument) << held.error().str();
    EXPECT_NE(held.error().message.find("symbolic link"), std::string::npos) << held.error().str();
    EXPECT_TRUE(fs::is_empty(d.path() / "outside"));
    // A dangling folder link too: nothing is created where it points.
    fs::remove(d.path() / "root" / "locks");
    fs::create_directory_symlink(d.path() / "nowhere", d.path() / "root" / "locks");
    held = FileLock::acquire(d.path() / "root" / "locks" / "autotune-abc.lock", std::chrono::milliseconds(100));
    ASSERT_FALSE(held.ok());
    EXPECT_NE(held.error().message.find("symbolic link"), std::string::npos) << held.error().str();
    EXPECT_FALSE(fs::exists(d.path() / "nowhere"));
}

TEST(FileLockSafety, AFifoOrFolderAtTheLockIsRefusedWithoutWaiting) {
    test::ScratchDir d("lock-fifo");
    const fs::path fifo = d.path() / "locks" / "a.lock";
    fs::create_directories(fifo.parent_path());
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    auto held = FileLock::acquire(fifo, std::chrono::milliseconds(100));
    ASSERT_FALSE(held.ok());
    EXPECT_NE(held.error().message.find("FIFO"), std::string::npos) << held.error().str();
    fs::create_directories(d.path() / "locks" / "b.lock");
    EXPECT_FALSE(FileLock::acquire(d.path() / "locks" / "b.lock", std::chrono::milliseconds(100)).ok());
}

TEST(FileLockSafety, AnOrdinaryLockIsCreatedWithItsFoldersAndExcludesOthers) {
    test::ScratchDir d("lock-ok");
    const fs::path lock = d.path() / "root" / "locks" / "autotune-abc.lock";
    auto held = FileLock::acquire(lock, std::chrono::milliseconds(100));
    ASSERT_TRUE(held.ok()) << held.error().str();
    EXPECT_TRUE(held->held());
    EXPECT_TRUE(fs::is_regular_file(lock));
    auto second = FileLock::acquire(lock, std::chrono::milliseconds(50));
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.error().code, Errc::timeout);
    *held = FileLock();
    EXPECT_TRUE(FileLock::acquire(lock, std::chrono::milliseconds(100)).ok());
}

}  // namespace
}  // namespace kiln
