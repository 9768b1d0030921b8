// `kiln-cli evict` end to end on a copy of the two-entries fixture.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../../core/inductor/scanner_test_helpers.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace kiln::test {
namespace {

// Starts argv with stdout and stderr to /dev/null; returns its pid.
pid_t spawn_background(const std::vector<std::string>& argv) {
    pid_t pid = ::fork();
    if (pid == 0) {
        int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, 1);
        ::dup2(null, 2);
        std::vector<char*> args;
        for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    return pid;
}

std::uint64_t file_count(const fs::path& root) {
    std::uint64_t n = 0;
    for (auto& e : fs::recursive_directory_iterator(root)) n += e.is_regular_file();
    return n;
}

class CliEvict : public ::testing::Test {
protected:
    ScratchDir dir{"cli-evict"};
    fs::path root = dir.path() / "cache";
    void SetUp() override { fs::copy(two_entries_root(), root, fs::copy_options::recursive); }
};

TEST_F(CliEvict, DryRunByDefaultThenYesDeletes) {
    // max-size 0: everything must go.
    auto dry = run_command({cli_path(), "evict", root.string(), "--max-size", "0"});
    ASSERT_EQ(dry.exit_code, 0) << dry.err;
    EXPECT_NE(dry.out.find("would remove"), std::string::npos);
    EXPECT_NE(dry.out.find("--yes"), std::string::npos);
    EXPECT_EQ(file_count(root), 33u);

    auto real = run_command({cli_path(), "evict", root.string(), "--max-size", "0", "--yes", "--json"});
    ASSERT_EQ(real.exit_code, 0) << real.err;
    auto j = nlohmann::json::parse(real.out);
    EXPECT_EQ(j["freed_bytes"], 645561);
    std::uint64_t sum = 0;
    for (auto& g : j["removed"]) {
        EXPECT_FALSE(fs::exists(g["path"].get<std::string>()));
        sum += g["bytes"].get<std::uint64_t>();
    }
    EXPECT_EQ(sum, 645561u);
    EXPECT_TRUE(j["skipped"].empty());
    EXPECT_EQ(file_count(root), 0u);
}

TEST_F(CliEvict, OlderThanKeepsRecentlyUsed) {
    auto r = run_command({cli_path(), "evict", root.string(), "--older-than", "1d", "--yes", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["freed_bytes"], 0);  // just copied: all used today
    EXPECT_EQ(file_count(root), 33u);
}

TEST_F(CliEvict, CategoryFilter) {
    auto r = run_command(
        {cli_path(), "evict", root.string(), "--max-size", "0", "--category", "triton_compiled", "--yes", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // The three Triton kernel dirs, with the FX and AOT entries that need them (issue 42 #12).
    EXPECT_EQ(nlohmann::json::parse(r.out)["removed"].size(), 5u);
    EXPECT_EQ(file_count(root), 5u);
}

TEST_F(CliEvict, BadInputs) {
    EXPECT_EQ(run_command({cli_path(), "evict", root.string()}).exit_code, 2);  // no limit
    EXPECT_EQ(run_command({cli_path(), "evict", root.string(), "--older-than", "1d", "--max-size", "1G"}).exit_code, 2);
    EXPECT_EQ(run_command({cli_path(), "evict", root.string(), "--older-than", "soon"}).exit_code, 2);
    EXPECT_EQ(run_command({cli_path(), "evict", root.string(), "--max-size", "0", "--category", "nope"}).exit_code, 2);
    auto missing = run_command({cli_path(), "evict", (dir.path() / "nope").string(), "--max-size", "0"});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("nope"), std::string::npos);
    EXPECT_EQ(file_count(root), 33u);
}

TEST_F(CliEvict, ForeignRootNeedsForce) {
    fs::path home = dir.path() / "home";
    fs::create_directories(home);
    std::ofstream(home / "notes.txt") << "mine";
    auto refused = run_command({cli_path(), "evict", home.string(), "--max-size", "0", "--yes"});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find("--force"), std::string::npos);
    EXPECT_TRUE(fs::exists(home / "notes.txt"));
    auto forced = run_command({cli_path(), "evict", home.string(), "--max-size", "0", "--force", "--json"});
    EXPECT_EQ(forced.exit_code, 0);
    EXPECT_EQ(nlohmann::json::parse(forced.out)["removed"].size(), 1u);
    EXPECT_TRUE(fs::exists(home / "notes.txt"));  // --force without --yes is still a dry run
}

// Issue 16.1: a size or age beyond 64 bits used to become a limit of 0 (everything deleted).
TEST_F(CliEvict, OutOfRangeLimitsAreUsageErrorsAndDeleteNothing) {
    for (const char* size : {"18446744073709551615", "2e19", "1e30", "1e300", "18446744073709551616B"}) {
        auto r = run_command({cli_path(), "evict", root.string(), "--max-size", size, "--yes"});
        EXPECT_EQ(r.exit_code, 2) << size << ": " << r.out << r.err;
        EXPECT_NE(r.err.find(size), std::string::npos) << r.err;
    }
    for (const char* age : {"1e300", "2e19", "106752d"}) {
        auto r = run_command({cli_path(), "evict", root.string(), "--older-than", age, "--yes"});
        EXPECT_EQ(r.exit_code, 2) << age << ": " << r.out << r.err;
    }
    EXPECT_EQ(file_count(root), 33u);
    // A bare number is GB, and the command says so.
    auto bare = run_command({cli_path(), "evict", root.string(), "--max-size", "20"});
    EXPECT_EQ(bare.exit_code, 0);
    EXPECT_NE(bare.err.find("a bare number is GB"), std::string::npos) << bare.err;
    EXPECT_NE(bare.out.find("Would free 0 group(s)"), std::string::npos) << bare.out;
}

// Issue 16.3: a file name that is not UTF-8 used to kill `--json` after the files were deleted.
TEST_F(CliEvict, JsonReportsNonUtf8NamesAfterDeleting) {
    fs::path odd = root / "fxgraph" / "zz" / "fzz\xff\xfename";
    fs::create_directories(odd);
    std::ofstream(odd / "entry\x80") << "bytes";
    auto r = run_command({cli_path(), "evict", root.string(), "--max-size", "0", "--yes", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Python reads it and gets the original bytes back (json.loads + os.fsencode).
    auto py = run_command({"python3", "-c",
                           "import json,os,sys; r=json.load(sys.stdin)['removed']; "
                           "sys.stdout.buffer.write(b'\\n'.join(os.fsencode(g['path']) for g in r))"},
                          r.out);
    ASSERT_EQ(py.exit_code, 0) << py.err;
    EXPECT_NE(py.out.find(odd.string()), std::string::npos) << py.out;
    EXPECT_NE(r.out.find("fzz\\udcff\\udcfename"), std::string::npos);
    EXPECT_FALSE(fs::exists(odd));
}

// Issue 16.2: the root is a symlink swapped to another directory while evict runs. Everything is
// removed through the descriptor opened before the scan: the other directory, shaped like the cache
// with the same relative paths (what a path-based removal would delete), keeps every file.
TEST_F(CliEvict, SwappingASymlinkedRootMidRunNeverTouchesTheOtherTree) {
    auto make_cache = [](const fs::path& r, int groups) {
        for (int i = 0; i < groups; ++i) {
            char key[64];
            std::snprintf(key, sizeof key, "f%02d%049d", i % 100, i);
            fs::path kd = r / "fxgraph" / std::string(key + 1, 2) / key;
            fs::create_directories(kd);
            std::ofstream(kd / "entry") << key;
        }
    };
    fs::path many = dir.path() / "many", other = dir.path() / "other", link = dir.path() / "link";
    make_cache(many, 1000);
    make_cache(other, 1000);
    const std::uint64_t other_files = file_count(other);
    fs::create_directory_symlink(many, link);

    pid_t pid = spawn_background({cli_path(), "evict", link.string(), "--max-size", "0", "--yes", "--json"});
    ASSERT_GT(pid, 0);
    // Once evict has begun deleting (the oldest group, made first, is gone), swap the link back and
    // forth until it ends.
    fs::path first = many / "fxgraph" / "00" / ("f00" + std::string(49, '0'));
    fs::path last = many / "fxgraph" / "99" / ("f99" + std::string(46, '0') + "999");
    ASSERT_TRUE(fs::exists(first) && fs::exists(last));
    int swaps = 0, status = 0;
    bool exited = false;
    while (fs::exists(first) && !(exited = ::waitpid(pid, &status, WNOHANG) != 0)) ::usleep(100);
    EXPECT_FALSE(exited) << "evict ended before the first group was seen gone";
    EXPECT_TRUE(fs::exists(last)) << "evict finished before the first swap: the test proves nothing";
    while (!exited && ::waitpid(pid, &status, WNOHANG) == 0) {
        fs::path tmp = dir.path() / "link.tmp";
        fs::create_directory_symlink(swaps % 2 == 0 ? other : many, tmp);
        fs::rename(tmp, link);  // atomic, like `mv -T`
        ++swaps;
        ::usleep(200);
    }
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_GT(swaps, 2);
    EXPECT_EQ(file_count(other), other_files) << "evict deleted outside the tree it scanned";
    EXPECT_EQ(file_count(many), 0u);
}

TEST_F(CliEvict, MaxFilesTrimsToTheInodeQuotaLeastRecentlyUsedFirst) {
    ASSERT_EQ(file_count(root), 33u);
    auto r = run_command({cli_path(), "evict", root.string(), "--max-files", "20", "--yes", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_LE(file_count(root), 20u);
    EXPECT_EQ(j["freed_files"].get<std::uint64_t>(), 33u - file_count(root));
    EXPECT_GT(file_count(root), 0u);  // whole groups until the quota holds, not everything
}

TEST(CliEvictPgo, MaxFilesKeepsPgoProfilesAndLocksUnlessNamed) {
    ScratchDir dir{"cli-evict-pgo"};
    fs::path root = dir.path() / "cache";
    fs::copy(pgo_root(), root, fs::copy_options::recursive);
    auto r = run_command({cli_path(), "evict", root.string(), "--max-files", "0", "--yes"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(root / "dynamo" / "code_state_kiln-dev-job_None_.pkl"));
    EXPECT_TRUE(fs::exists(root / "dynamo" / "code_state_kiln-dev-job_None_.pkl.lock"));
    EXPECT_EQ(file_count(root / "fxgraph"), 0u);  // ...while the graph entries went
}

TEST(CliEvictStale, StaleRemovesTheEntriesThatCanNeverHitOnTheTarget) {
    ScratchDir dir{"cli-evict-stale"};
    fs::path root = dir.path() / "cache";
    fs::copy(h100_h200_root(), root, fs::copy_options::recursive);
    std::string h100 = (fixture_dir() / "h100h200" / "h100" / "trace" / "warm").string();
    auto check = run_command({cli_path(), "check", root.string(), "--target", h100, "--json"});
    auto stale = nlohmann::json::parse(check.out)["stale"];
    ASSERT_FALSE(stale.empty()) << check.err;
    auto r = run_command({cli_path(), "evict", root.string(), "--stale", "--target", h100, "--yes", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& s : stale) EXPECT_FALSE(fs::exists(root / s["group"].get<std::string>())) << s.dump();
    auto after =
        nlohmann::json::parse(run_command({cli_path(), "check", root.string(), "--target", h100, "--json"}).out);
    EXPECT_TRUE(after["stale"].empty()) << after["stale"].dump(1);
    EXPECT_FALSE(nlohmann::json::parse(r.out)["removed"].empty());
}

// Issue 29 item 7: an AOTAutograd entry and the FX graphs it names are one unit. With the FX graph the
// least recently used and --max-files one below the count, evict never leaves the AOT entries pointing
// at a graph that is gone (torch would miss them): `check` finds no aot_fx_key_missing afterwards.
TEST_F(CliEvict, AnFxGraphGoesOnlyWithTheAotEntriesThatNeedIt) {
    const fs::path fx = root / "fxgraph" / "sb" / "fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh";
    ASSERT_TRUE(fs::is_directory(fx));
    set_tree_times(root, now_ns() - kDayNs);
    set_tree_times(fx, now_ns() - 10 * kDayNs);
    const auto n = file_count(root);
    auto r = run_command({cli_path(), "evict", root.string(), "--max-files", std::to_string(n - 1), "--yes"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_LT(file_count(root), n);
    auto c = run_command({cli_path(), "check", root.string(), "--json"});
    auto j = nlohmann::json::parse(c.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << c.out << c.err;
    for (const auto& p : j["problems"]) EXPECT_NE(p["kind"], "aot_fx_key_missing") << p.dump();
    // Removing the graph takes the AOT entries naming it along: never one without the other.
    EXPECT_EQ(fs::exists(fx),
              fs::exists(root / "aotautograd" / "a4pxxvose2w4y3ecq3az3lst3awwzfpllzkollbqxqbiafz7ni2c"));
}

// Issue 41.5: a dry run opens with what would go per category, and warns what the .best_config files
// cost: their kernels tuned again, coordinate descent for those it chose, and the tuning time torch
// recorded in them (time_taken_ms).
TEST(CliEvictSummary, DryRunOpensWithCategoriesAndTheBestConfigCost) {
    ScratchDir dir("cli-evict-summary");
    const fs::path root = dir.path() / "inductor";
    fs::copy(h100_root(), root, fs::copy_options::recursive);
    int files = 0, coordesc = 0;
    std::int64_t ms = 0;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.path().extension() == ".best_config") {
            auto j = nlohmann::json::parse(read_file(e.path()));
            ++files;
            coordesc += j["found_by_coordesc"].get<bool>();
            ms += j["time_taken_ms"].get<std::int64_t>();
        }
    ASSERT_EQ(files, 5);
    auto r = run_command({cli_path(), "evict", root.string(), "--max-size", "0"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("Would remove ", 0), 0u) << r.out;
    const auto first_group = r.out.find("would remove ");
    for (const char* category : {"\n  fxgraph ", "\n  triton_compiled ", "\n  kernel_module "}) {
        auto at = r.out.find(category);
        EXPECT_LT(at, first_group) << category << "\n" << r.out;
    }
    char cost[600];
    std::snprintf(cost, sizeof cost,
                  "Warning: 5 .best_config file(s) would go: the next run of their kernels benchmarks their configs "
                  "again and re-runs coordinate descent for %d of them (%.1f s of tuning recorded in 5 of them",
                  coordesc, static_cast<double>(ms) / 1000);
    EXPECT_LT(r.out.find(cost), first_group) << cost << "\n" << r.out;
    auto yes = run_command({cli_path(), "evict", root.string(), "--max-size", "0", "--yes"});
    ASSERT_EQ(yes.exit_code, 0) << yes.err;
    EXPECT_EQ(yes.out.find("Warning: "), std::string::npos) << yes.out;  // a summary of the dry run only
}

}  // namespace
}  // namespace kiln::test
