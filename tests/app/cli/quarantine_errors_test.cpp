// `kiln-cli check --quarantine / --restore` where they cannot do what was asked: a quarantine id that is
// a symbolic link is refused and says so (it said "no such quarantine"), and a quarantine whose every
// move failed leaves nothing behind (it left an empty folder with a manifest of 0 groups).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "test_support.hpp"

namespace fs = std::filesystem;

namespace kiln::test {
namespace {

TEST(CliQuarantineErrors, ASymlinkedQuarantineIsRefusedAsASymlink) {
    ScratchDir dir{"cli-quarantine-link"};
    fs::path root = dir.path() / "cache", outside = dir.path() / "outside";
    fs::copy(two_entries_root(), root, fs::copy_options::recursive);
    fs::create_directories(outside / "files");
    std::ofstream(outside / "manifest.json") << R"({"kiln_quarantine": 1, "id": "20260101T000000Z-1", "groups": []})";
    fs::create_directories(root / ".kiln-quarantine");
    fs::create_directory_symlink(outside, root / ".kiln-quarantine" / "20260101T000000Z-1");
    auto r = run_command({cli_path(), "check", root.string(), "--restore", "20260101T000000Z-1"});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("symbolic link"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("refused"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("no such quarantine"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(outside / "manifest.json"));

    // A missing one is still "no such quarantine".
    auto missing = run_command({cli_path(), "check", root.string(), "--restore", "20260101T000000Z-2"});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("no such quarantine"), std::string::npos) << missing.err;
}

TEST(CliQuarantineErrors, NothingMovedLeavesNoQuarantine) {
    ScratchDir dir{"cli-quarantine-none"};
    fs::path root = dir.path() / "cache";
    fs::copy(two_entries_root(), root, fs::copy_options::recursive);
    const fs::path temp = root / ".1.2.tmp";
    std::ofstream(temp) << "x";
    fs::last_write_time(temp, fs::file_time_type::clock::now() - std::chrono::hours(3));  // a stale temporary
    fs::create_directories(root / ".kiln-quarantine");
    // The temporary cannot be moved: its folder is read-only (for a user) and it is immutable (for root,
    // whom permissions do not stop; chattr needs that capability and fails harmlessly without it).
    (void)run_command({"chattr", "+i", temp.string()});
    ASSERT_EQ(::chmod(root.c_str(), 0555), 0);
    auto r = run_command({cli_path(), "check", root.string(), "--quarantine"});
    ASSERT_EQ(::chmod(root.c_str(), 0755), 0);
    (void)run_command({"chattr", "-i", temp.string()});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("Nothing quarantined"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("Quarantined 0 group(s)"), std::string::npos) << r.out;
    // The quarantine made for the attempt is gone; .kiln-quarantine itself may go too once it is empty.
    const fs::path qdir = root / ".kiln-quarantine";
    EXPECT_TRUE(!fs::exists(qdir) || fs::is_empty(qdir)) << "a quarantine was left with nothing in it";
    EXPECT_TRUE(fs::exists(temp));
}

}  // namespace
}  // namespace kiln::test
