// Reading a cache must not change what LRU eviction would remove (issues 18 and 29): with every atime
// of a fixture copy set to one date, Kiln's reads (every command that only reads a cache: ls, timings,
// show, guards, misses, stats, check, evict's dry run, diff, dis, timeline, bundle pack, env --from,
// portable) leave every atime as it was (O_NOATIME: this test runs as the
// files' owner). As another user (nobody, on a root-owned copy) O_NOATIME is not granted, and
// evict says so.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "../../core/inductor/scanner_test_helpers.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using kiln::test::run_command;

namespace {

constexpr time_t kOldAtime = 1577836800;  // 2020-01-01: older than every mtime, so relatime would update it

void set_all_atimes(const fs::path& root) {
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        struct timespec ts[2] = {{kOldAtime, 0}, {0, UTIME_OMIT}};
        ASSERT_EQ(::utimensat(AT_FDCWD, e.path().c_str(), ts, AT_SYMLINK_NOFOLLOW), 0) << e.path();
    }
}

std::map<std::string, time_t> changed_atimes(const fs::path& root) {
    std::map<std::string, time_t> out;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        if (!e.is_regular_file()) continue;
        struct stat st {};
        ::stat(e.path().c_str(), &st);
        if (st.st_atim.tv_sec != kOldAtime) out[fs::relative(e.path(), root).string()] = st.st_atim.tv_sec;
    }
    return out;
}

}  // namespace

TEST(CliAtime, ReadsLeaveAtimesAlone) {
    kiln::test::ScratchDir dir("atime");
    const fs::path copy = dir.path() / "two";
    fs::copy(kiln::test::two_entries_root().parent_path(), copy, fs::copy_options::recursive);
    const fs::path root = copy / "inductor";
    const std::string key_dir = (root / "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh").string();
    const std::string entry = key_dir + "/deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga";
    set_all_atimes(copy);
    // Control: a plain read does update the atime on this file system (else the test could not fail).
    const fs::path control = root / "sf/csfurzdbvisnjddfmxjoxhfpdit2nwrkghdbvi55f5c3gx4za523.py";
    { std::ifstream(control).get(); }
    ASSERT_EQ(changed_atimes(copy).count(fs::relative(control, copy).string()), 1u)
        << "this file system does not update atimes on read";
    set_all_atimes(copy);

    const std::vector<std::vector<std::string>> commands{
        {"ls", root.string()},
        {"timings", root.string()},
        {"show", entry},
        {"show", entry, "--kernels"},
        {"guards", key_dir},
        {"guards", key_dir, "--sizes", "8"},
        {"misses", (copy / "trace").string(), "--root", root.string()},
        {"stats", root.string()},
        // Issue 29 item 9: check (the GUI's Overview and Health run it at every open) read every binary's
        // head, every entry and module without O_NOATIME; and the other commands that only read a cache.
        {"check", root.string()},
        {"check", root.string(), "--json"},
        {"check", root.string(), "--list-quarantine"},
        {"evict", root.string(), "--max-size", "1TB"},  // a dry run; reads the AOT entries' FX keys
        {"diff", entry, key_dir + "/naiolsaiywonfvjqzuuystkn5qe7virsv3d3rgkz7xkb52e6pb5"},
        {"dis", entry},
        {"timeline", (copy / "trace").string(), "--root", root.string()},
        {"bundle", "pack", root.string(), "--out", (dir.path() / "packed.bin").string()},
        {"portable", root.string(), "--target", (dir.path() / "fingerprint.json").string()},
    };
    // A target for `portable`: the fingerprint of the machine that wrote the cache (env --from).
    {
        auto fp = run_command({kiln::test::cli_path(), "env", "--from", root.string(), "--json"});
        ASSERT_EQ(fp.exit_code, 0) << fp.err;
        std::ofstream(dir.path() / "fingerprint.json") << fp.out;
        auto changed = changed_atimes(copy);
        EXPECT_TRUE(changed.empty()) << "kiln-cli env --from changed the atime of " << changed.begin()->first;
        set_all_atimes(copy);
    }
    for (const auto& args : commands) {
        std::vector<std::string> argv{kiln::test::cli_path()};
        argv.insert(argv.end(), args.begin(), args.end());
        auto r = run_command(argv);
        EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
        auto changed = changed_atimes(copy);
        EXPECT_TRUE(changed.empty()) << "kiln-cli " << args[0] << " changed the atime of " << changed.begin()->first;
        set_all_atimes(copy);
    }
}

// Issue 42, item 6: `retune --list` read every kernel dir's `.ptx` and `.source` and `startup` its logs
// through std::ifstream, refreshing their atimes (`evict --older-than 30d` then picked 21 groups of 41).
TEST(CliAtime, RetuneListAndStartupLeaveAtimesAlone) {
    kiln::test::ScratchDir dir("atime-retune");
    const fs::path copy = dir.path() / "h100";
    fs::copy(kiln::test::h100_root().parent_path(), copy, fs::copy_options::recursive);
    const fs::path root = copy / "inductor";
    set_all_atimes(copy);
    const fs::path control = fs::directory_iterator(root / "triton" / "0")->path() / "triton_mm.ptx";
    { std::ifstream(control).get(); }
    ASSERT_EQ(changed_atimes(copy).count(fs::relative(control, copy).string()), 1u)
        << "this file system does not update atimes on read";
    set_all_atimes(copy);
    for (const std::vector<std::string>& args : {
             std::vector<std::string>{"retune", root.string(), "--list", "--arch", "90"},
             {"retune", root.string(), "--list", "--arch", "90", "--json"},
             {"startup", (copy / "trace" / "cold").string(), "--no-root"},
             {"startup", (copy / "trace" / "warm").string(), "--root", root.string(), "--json"},
             {"startup", (copy / "trace").string()},  // the root found beside the logs
         }) {
        std::vector<std::string> argv{kiln::test::cli_path()};
        argv.insert(argv.end(), args.begin(), args.end());
        auto r = run_command(argv);
        EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
        auto changed = changed_atimes(copy);
        EXPECT_TRUE(changed.empty()) << "kiln-cli " << args[0] << " " << args.back() << " changed " << changed.size()
                                     << " atimes, " << changed.begin()->first;
        set_all_atimes(copy);
    }
}

TEST(CliAtime, EvictSaysWhenItCannotKeepAtimes) {
    ASSERT_EQ(geteuid(), 0u) << "needs root to make a cache owned by another user";
    kiln::test::ScratchDir dir("atime-other");
    fs::copy(kiln::test::two_entries_root(), dir.path() / "inductor", fs::copy_options::recursive);
    const std::string root = (dir.path() / "inductor").string();
    auto own = run_command({kiln::test::cli_path(), "evict", root, "--max-size", "1TB"});
    ASSERT_EQ(own.exit_code, 0) << own.err;
    EXPECT_EQ(own.out.find("belongs to another user"), std::string::npos) << own.out;
    const std::string cli = kiln::test::cli_path_for_others(dir);
    int rc = kiln::test::run_unprivileged([&] {
        auto r = run_command({cli, "evict", root, "--max-size", "1TB"});
        if (r.exit_code != 0) return 10;
        return r.out.find("belongs to another user") != std::string::npos ? 0 : 11;
    });
    EXPECT_EQ(rc, 0);
}
