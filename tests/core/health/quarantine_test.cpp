// Quarantine and restore on scratch copies: the scanner's view of the quarantine folder, restore
// never replacing a file that came back meanwhile, ids that would leave the root.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "health/check.hpp"
#include "health/quarantine.hpp"
#include "inductor/scanner.hpp"
#include "test_support.hpp"
#include "util/unique_fd.hpp"

namespace fs = std::filesystem;

namespace kiln::health {
namespace {

class Quarantine : public ::testing::Test {
protected:
    test::ScratchDir dir{"health-quarantine"};
    fs::path root = dir.path() / "cache";
    fs::path temp = root / ".11.12.tmp";
    void SetUp() override {
        fs::copy(test::two_entries_root(), root, fs::copy_options::recursive);
        std::ofstream(temp) << "left by a dead writer";
        fs::last_write_time(temp, fs::file_time_type::clock::now() - std::chrono::hours(5));
    }
};

TEST_F(Quarantine, TheScannerCountsTheQuarantineButNeverListsItsFiles) {
    auto before = inductor::scan_cache(root);
    ASSERT_TRUE(before.ok());
    auto run = quarantine_problems(root, {}, false);
    ASSERT_TRUE(run.ok()) << run.error().str();
    EXPECT_EQ(run->before.problems.size(), 1u);
    EXPECT_TRUE(run->after.problems.empty());
    ASSERT_EQ(run->moved.manifest.groups.size(), 1u);
    auto after = inductor::scan_cache(root);
    ASSERT_TRUE(after.ok());
    EXPECT_EQ(after->artifacts.size(), before->artifacts.size() - 1);
    for (const auto& a : after->artifacts) EXPECT_EQ(a.rel_path().find(".kiln-quarantine"), std::string_view::npos);
    EXPECT_EQ(after->quarantine_files, 3u);  // the temp file, the manifest and the quarantine's lock file
    EXPECT_GT(after->quarantine_bytes, 0u);
}

TEST_F(Quarantine, RestoreNeverReplacesAFileThatCameBack) {
    auto run = quarantine_problems(root, {}, false);
    ASSERT_TRUE(run.ok()) << run.error().str();
    std::ofstream(temp) << "a new writer";
    auto restored = restore_quarantine(root, run->moved.manifest.id);
    ASSERT_TRUE(restored.ok()) << restored.error().str();
    EXPECT_TRUE(restored->restored.empty());
    ASSERT_EQ(restored->skipped.size(), 1u);
    EXPECT_EQ(test::read_file(temp), "a new writer");
    // Still quarantined, still restorable once the path is free again.
    ASSERT_EQ(list_quarantines(root).size(), 1u);
    fs::remove(temp);
    auto again = restore_quarantine(root, run->moved.manifest.id);
    ASSERT_TRUE(again.ok()) << again.error().str();
    EXPECT_EQ(again->restored.size(), 1u);
    EXPECT_EQ(test::read_file(temp), "left by a dead writer");
    EXPECT_TRUE(list_quarantines(root).empty());
}

TEST_F(Quarantine, NothingMovableLeavesNoQuarantineFolderBehind) {
    fs::remove(temp);
    // A truncated FX entry whose key is locked, as a torch.compile run holds it (torch's FileLock: flock).
    auto scan = inductor::scan_cache(root);
    ASSERT_TRUE(scan.ok()) << scan.error().str();
    const inductor::Artifact* entry = nullptr;
    for (const auto& a : scan->artifacts)
        if (!entry && a.category == inductor::Category::fxgraph && a.group != inductor::kNoGroup) entry = &a;
    ASSERT_NE(entry, nullptr);
    const std::string key(scan->groups[entry->group].key);
    ASSERT_FALSE(key.empty());
    fs::resize_file(entry->path(), fs::file_size(entry->path()) / 2);
    fs::create_directories(root / "locks");
    fs::path lock = root / "locks" / (key + ".lock");
    std::ofstream(lock).close();
    UniqueFd held(::open(lock.c_str(), O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(held.valid());
    ASSERT_EQ(::flock(held.get(), LOCK_EX), 0);

    auto run = quarantine_problems(root, {}, false);
    ASSERT_TRUE(run.ok()) << run.error().str();
    ASSERT_EQ(run->before.problems.size(), 1u);
    EXPECT_EQ(run->after.problems.size(), 1u);
    EXPECT_TRUE(run->moved.manifest.id.empty());
    EXPECT_TRUE(run->moved.manifest.groups.empty());
    ASSERT_EQ(run->moved.skipped.size(), 1u);
    EXPECT_NE(run->moved.skipped[0].find("locked"), std::string::npos) << run->moved.skipped[0];
    EXPECT_FALSE(fs::exists(root / ".kiln-quarantine"));
    EXPECT_TRUE(list_quarantines(root).empty());
    EXPECT_TRUE(fs::exists(entry->path()));  // left where it was

    // Once the lock is released, the same run moves the group into a quarantine of its own.
    held.reset();
    auto again = quarantine_problems(root, {}, false);
    ASSERT_TRUE(again.ok()) << again.error().str();
    EXPECT_FALSE(again->moved.manifest.id.empty());
    EXPECT_FALSE(again->moved.manifest.groups.empty());  // the key dir, and what its move broke
    EXPECT_TRUE(again->after.problems.empty());
    EXPECT_EQ(list_quarantines(root).size(), 1u);
}

TEST_F(Quarantine, IdsThatLeaveTheQuarantineAreRefused) {
    for (std::string id : {"..", "../cache", "a/b", "", ".hidden"}) {
        auto r = restore_quarantine(root, id);
        ASSERT_FALSE(r.ok()) << id;
        EXPECT_EQ(r.error().code, Errc::invalid_argument) << id;
    }
    auto missing = restore_quarantine(root, "20990101T000000Z-1");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, Errc::not_found);
}

}  // namespace
}  // namespace kiln::health
