// Quarantine and restore on scratch copies: the scanner's view of the quarantine folder, restore
// never replacing a file that came back meanwhile, ids that would leave the root.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "health/check.hpp"
#include "health/quarantine.hpp"
#include "inductor/scanner.hpp"
#include "opened_dir.hpp"
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
    auto run = quarantine_problems(kiln::test::open_dir(root), {}, false);
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
    auto run = quarantine_problems(kiln::test::open_dir(root), {}, false);
    ASSERT_TRUE(run.ok()) << run.error().str();
    std::ofstream(temp) << "a new writer";
    auto restored = restore_quarantine(kiln::test::open_dir(root), run->moved.manifest.id);
    ASSERT_TRUE(restored.ok()) << restored.error().str();
    EXPECT_TRUE(restored->restored.empty());
    ASSERT_EQ(restored->skipped.size(), 1u);
    EXPECT_EQ(test::read_file(temp), "a new writer");
    // Still quarantined, still restorable once the path is free again.
    ASSERT_EQ(list_quarantines(kiln::test::open_dir(root)).size(), 1u);
    fs::remove(temp);
    auto again = restore_quarantine(kiln::test::open_dir(root), run->moved.manifest.id);
    ASSERT_TRUE(again.ok()) << again.error().str();
    EXPECT_EQ(again->restored.size(), 1u);
    EXPECT_EQ(test::read_file(temp), "left by a dead writer");
    EXPECT_TRUE(list_quarantines(kiln::test::open_dir(root)).empty());
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

    auto run = quarantine_problems(kiln::test::open_dir(root), {}, false);
    ASSERT_TRUE(run.ok()) << run.error().str();
    ASSERT_EQ(run->before.problems.size(), 1u);
    EXPECT_EQ(run->after.problems.size(), 1u);
    EXPECT_TRUE(run->moved.manifest.id.empty());
    EXPECT_TRUE(run->moved.manifest.groups.empty());
    ASSERT_EQ(run->moved.skipped.size(), 1u);
    EXPECT_NE(run->moved.skipped[0].find("locked"), std::string::npos) << run->moved.skipped[0];
    EXPECT_FALSE(fs::exists(root / ".kiln-quarantine"));
    EXPECT_TRUE(list_quarantines(kiln::test::open_dir(root)).empty());
    EXPECT_TRUE(fs::exists(entry->path()));  // left where it was

    // Once the lock is released, the same run moves the group into a quarantine of its own.
    held.reset();
    auto again = quarantine_problems(kiln::test::open_dir(root), {}, false);
    ASSERT_TRUE(again.ok()) << again.error().str();
    EXPECT_FALSE(again->moved.manifest.id.empty());
    EXPECT_FALSE(again->moved.manifest.groups.empty());  // the key dir, and what its move broke
    EXPECT_TRUE(again->after.problems.empty());
    EXPECT_EQ(list_quarantines(kiln::test::open_dir(root)).size(), 1u);
}

// A compiled library of the H100 fixture with its torch lock (locks/<key>.lock, <key[1:3]>/<key>.so).
struct LockedLibrary {
    std::string key;
    fs::path so, lock;
    std::string bytes;
};

std::vector<LockedLibrary> locked_libraries(const fs::path& root) {
    std::vector<LockedLibrary> out;
    for (const auto& e : fs::directory_iterator(root / "locks")) {
        std::string key = e.path().stem().string();
        fs::path so = root / key.substr(1, 2) / (key + ".so");
        if (key.size() > 3 && fs::is_regular_file(so)) out.push_back({key, so, e.path(), test::read_file(so)});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
    return out;
}

bool read_byte(int fd, char& c) { return ::read(fd, &c, 1) == 1; }
bool write_byte(int fd, char c) { return ::write(fd, &c, 1) == 1; }

// A compile as torch runs one, in a process of its own: it takes locks/<key>.lock (filelock's
// UnixFileLock: open O_RDWR|O_CREAT|O_TRUNC, flock LOCK_EX), writes the first half of the .so and says
// 'p'; on 'f' it writes the rest, releases the lock and says 'd'. Commands: a library's index, 'q' quits.
[[noreturn]] void compile_like_torch(const std::vector<LockedLibrary>& libs, int in, int out) {
    for (char i; read_byte(in, i) && i != 'q';) {
        const LockedLibrary& lib = libs[static_cast<unsigned char>(i)];
        int lock = ::open(lib.lock.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        int so = ::open(lib.so.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (lock < 0 || so < 0 || ::flock(lock, LOCK_EX) != 0) ::_exit(2);
        const std::size_t half = lib.bytes.size() / 2;
        char go = 0;
        if (::write(so, lib.bytes.data(), half) != static_cast<ssize_t>(half) || !write_byte(out, 'p') ||
            !read_byte(in, go) ||
            ::write(so, lib.bytes.data() + half, lib.bytes.size() - half) !=
                static_cast<ssize_t>(lib.bytes.size() - half))
            ::_exit(3);
        ::close(so);
        ::flock(lock, LOCK_UN);
        ::close(lock);
        if (!write_byte(out, 'd')) ::_exit(4);
    }
    ::_exit(0);
}

// Issue 42 #10: check's verdict on a .so is taken while its compile holds the lock and the file is half
// written; the compile then finishes and releases the lock. Quarantine, acting on that verdict, must
// check the group again once it holds the lock itself: the finished library stays in the cache.
TEST(QuarantineUnderLock, ALibraryFinishedAfterTheVerdictIsNeverMoved) {
    test::ScratchDir dir{"health-quarantine-lock"};
    fs::path root = dir.path() / "cache";
    fs::copy(test::h100_root(), root, fs::copy_options::recursive);
    const auto libs = locked_libraries(root);
    ASSERT_GE(libs.size(), 3u);
    int to_child[2], from_child[2];
    ASSERT_EQ(::pipe(to_child), 0);
    ASSERT_EQ(::pipe(from_child), 0);
    pid_t child = ::fork();  // before any check: this process has no other thread yet
    ASSERT_GE(child, 0);
    if (child == 0) compile_like_torch(libs, to_child[0], from_child[1]);
    ::close(to_child[0]);
    ::close(from_child[1]);
    UniqueFd to(to_child[1]), from(from_child[0]);

    constexpr int kRounds = 4;
    int moved = 0;
    for (int round = 0; round < kRounds; ++round)
        for (std::size_t i = 0; i < libs.size(); ++i) {
            const LockedLibrary& lib = libs[i];
            char c = 0;
            ASSERT_TRUE(write_byte(to.get(), static_cast<char>(i)) && read_byte(from.get(), c) && c == 'p');
            auto report = check_cache(kiln::test::open_dir(root));  // the verdict, while the compile holds the lock
            ASSERT_TRUE(report.ok()) << report.error().str();
            const std::string rel = lib.so.lexically_relative(root).string();
            std::string group;
            for (const auto& p : report->problems)
                if (p.path == rel && p.kind == ProblemKind::truncated_binary) group = p.group();
            ASSERT_FALSE(group.empty()) << rel << " is not seen half written";
            std::vector<QuarantineRequest> requests;
            for (auto& r : quarantine_requests(*report, false))
                if (r.group == group) requests.push_back(std::move(r));
            ASSERT_EQ(requests.size(), 1u);
            ASSERT_TRUE(write_byte(to.get(), 'f') && read_byte(from.get(), c) && c == 'd');
            auto outcome =
                quarantine_groups(kiln::test::open_dir(root), requests);  // acted on once the compile is done
            ASSERT_TRUE(outcome.ok()) << outcome.error().str();
            if (!fs::exists(lib.so)) {
                ++moved;
                ADD_FAILURE() << "round " << round << ": the finished " << lib.so << " was quarantined";
                ASSERT_TRUE(restore_quarantine(kiln::test::open_dir(root), outcome->manifest.id).ok());
            }
            EXPECT_TRUE(outcome->manifest.groups.empty());
            EXPECT_EQ(test::read_file(lib.so), lib.bytes);
        }
    write_byte(to.get(), 'q');
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    EXPECT_EQ(moved, 0) << "of " << kRounds * libs.size();
    EXPECT_TRUE(list_quarantines(kiln::test::open_dir(root)).empty());
    auto after = check_cache(kiln::test::open_dir(root));
    ASSERT_TRUE(after.ok());
    for (const auto& p : after->problems) EXPECT_EQ(p.path.find(".so"), std::string::npos) << p.path;
}

TEST_F(Quarantine, IdsThatLeaveTheQuarantineAreRefused) {
    for (std::string id : {"..", "../cache", "a/b", "", ".hidden"}) {
        auto r = restore_quarantine(kiln::test::open_dir(root), id);
        ASSERT_FALSE(r.ok()) << id;
        EXPECT_EQ(r.error().code, Errc::invalid_argument) << id;
    }
    auto missing = restore_quarantine(kiln::test::open_dir(root), "20990101T000000Z-1");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, Errc::not_found);
}

}  // namespace
}  // namespace kiln::health
