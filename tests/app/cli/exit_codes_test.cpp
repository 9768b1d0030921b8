// HACKING.md's exit status rule, for every subcommand: a file that does not exist and an argument
// that is malformed are bad input (2); work that fails on real input is 1 (frontend/exit_code.hpp).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "test_support.hpp"

namespace {

using kiln::test::cli_path;
using kiln::test::run_command;

struct Case {
    std::vector<std::string> missing_file;  // names /nonexistent/...
    std::vector<std::string> bad_argument;
};

std::string key_dir() {
    return (kiln::test::two_entries_root() / "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh")
        .string();
}
std::string example(const char* name) { return (kiln::test::source_dir() / "resources/examples" / name).string(); }

TEST(CliExitCodes, MissingFilesAndBadArgumentsExitTwoInEveryCommand) {
    const std::string root = kiln::test::two_entries_root().string();
    const std::string nope = "/nonexistent/kiln-exit-codes";
    const std::vector<std::pair<std::string, Case>> cases{
        {"stats", {{"stats", nope}, {"stats", root, "--no-such-option"}}},
        {"ls", {{"ls", nope}, {"ls", root, "--no-such-option"}}},
        {"evict", {{"evict", nope, "--max-size", "0"}, {"evict", root, "--older-than", "soon"}}},
        {"show", {{"show", nope}, {"show", root, "--raw"}}},
        {"dis", {{"dis", nope}, {"dis"}}},
        {"guards", {{"guards", nope, "--sizes", "8"}, {"guards", key_dir(), "--sizes", "8,x"}}},
        {"diff", {{"diff", nope, nope}, {"diff", key_dir()}}},
        {"misses", {{"misses", nope}, {"misses", root, "--no-such-option"}}},
        {"timings", {{"timings", nope}, {"timings", root, "--top", "many"}}},
        {"compile", {{"compile", nope + ".cpp"}, {"compile", nope + ".cpp", "--out-ext"}}},
        {"autotune", {{"autotune", nope + ".json"}, {"autotune", example("matmul_cpu.json"), "--devices", "zero"}}},
        {"rebench", {{"rebench", nope + ".py"}, {"rebench", nope + ".py", "--timeout", "-1"}}},
        {"check", {{"check", nope}, {"check", root, "--no-such-option"}}},
        {"timeline", {{"timeline", nope}, {"timeline", root, "--no-such-option"}}},
        {"startup", {{"startup", nope}, {"startup", root, "--no-such-option"}}},
        {"retune", {{"retune", nope}, {"retune", root, "--no-such-option"}}},
        {"handback", {{"handback", nope}, {"handback", "--no-such-option"}}},
        {"ranks", {{"ranks", nope, nope}, {"ranks", root, root, "--rule", "nonsense"}}},
    };
    // Every subcommand `kiln-cli --help` lists is here (env, portable and bundle take their files
    // through options and subcommands: MoreCommandsAndDirectoriesGivenAsFiles covers them).
    std::set<std::string> covered{"env", "portable", "bundle"};
    for (const auto& [name, c] : cases) covered.insert(name);
    auto help = run_command({cli_path(), "--help"});
    ASSERT_EQ(help.exit_code, 0) << help.err;
    std::istringstream lines(help.out);
    bool in_list = false;
    int listed = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("Subcommands:", 0) == 0) {
            in_list = true;
        } else if (in_list && line.size() > 2 && line.rfind("  ", 0) == 0 && line[2] != ' ') {
            const std::string name = line.substr(2, line.find(' ', 2) - 2);
            ++listed;
            EXPECT_TRUE(covered.count(name)) << "kiln-cli " << name << " has no exit-code case here";
        }
    }
    EXPECT_GE(listed, static_cast<int>(covered.size())) << help.out;
    for (const auto& [name, c] : cases) {
        std::vector<std::string> argv{cli_path()};
        argv.insert(argv.end(), c.missing_file.begin(), c.missing_file.end());
        auto missing = run_command(argv);
        EXPECT_EQ(missing.exit_code, 2) << name << " on a missing file: " << missing.err;
        EXPECT_FALSE(missing.err.empty()) << name;
        argv = {cli_path()};
        argv.insert(argv.end(), c.bad_argument.begin(), c.bad_argument.end());
        auto bad = run_command(argv);
        EXPECT_EQ(bad.exit_code, 2) << name << " on a bad argument: " << bad.err;
    }
}

TEST(CliExitCodes, WorkThatFailsExitsOne) {
    kiln::test::ScratchDir dir("cli-exit-codes");
    const auto broken = dir.path() / "broken";
    std::ofstream(broken, std::ios::binary) << std::string("\x80\x04\x95garbage", 10);
    EXPECT_EQ(run_command({cli_path(), "show", broken.string()}).exit_code, 1);  // does not decode
    EXPECT_EQ(run_command({cli_path(), "dis", broken.string()}).exit_code, 1);
    const auto bad_cpp = dir.path() / "bad.cpp";
    std::ofstream(bad_cpp) << "int f() { return undeclared_here; }\n";
    EXPECT_EQ(
        run_command({cli_path(), "compile", bad_cpp.string(), "--cache-dir", (dir.path() / "cc").string()}).exit_code,
        1);  // the compiler failed
    // A corrupt pickle exits 1 from every command that reads one (guards and diff said 2).
    EXPECT_EQ(run_command({cli_path(), "guards", broken.string(), "--sizes", "8"}).exit_code, 1);
    EXPECT_EQ(run_command({cli_path(), "diff", broken.string(), broken.string()}).exit_code, 1);
    // A file that is no fingerprint, blob or log: the work on it fails.
    const auto junk = dir.path() / "junk.json";
    std::ofstream(junk) << "{not json";
    EXPECT_EQ(run_command({cli_path(), "env", "--from", junk.string()}).exit_code, 1);
    EXPECT_EQ(run_command({cli_path(), "bundle", "ls", junk.string()}).exit_code, 1);
    const auto empty = dir.path() / "empty.log";
    std::ofstream{empty};
    auto misses = run_command({cli_path(), "misses", empty.string()});
    EXPECT_EQ(misses.exit_code, 1);
    EXPECT_NE(misses.err.find("the log is empty"), std::string::npos) << misses.err;
}

// The rest of the commands and variants: env, portable, bundle, and a directory where a file is
// wanted (bad input: 2, in every command; it was 1, 2 or 1).
TEST(CliExitCodes, MoreCommandsAndDirectoriesGivenAsFiles) {
    kiln::test::ScratchDir dir("cli-exit-codes-more");
    const std::string root = kiln::test::two_entries_root().string();
    const std::string nope = "/nonexistent/kiln-exit-codes";
    const std::string d = dir.path().string();
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"env", "--from", nope},
             {"env", "--no-such-option"},
             {"portable", root, "--target", nope},
             {"portable", nope, "--target", root},
             {"bundle", "ls", nope},
             {"bundle", "unpack", nope, "--into", d},
             {"misses", nope},
             {"timings", nope, root},
             {"dis", d},
             {"compile", d},
             {"autotune", d},
             {"rebench", d},
             {"show", d},
         }) {
        std::vector<std::string> argv{cli_path()};
        argv.insert(argv.end(), args.begin(), args.end());
        auto r = run_command(argv);
        std::string what;
        for (const auto& a : args) what += a + " ";
        EXPECT_EQ(r.exit_code, 2) << what << ": " << r.err;
        EXPECT_FALSE(r.err.empty()) << what;
    }
}

// Issue 16.14: every duration option refuses nan, inf, 1e300, 0 and negatives as a usage error that
// says what it wants (1e300 became "no result within -9.22e+15 s").
TEST(CliExitCodes, DurationOptionsAreValidated) {
    const std::string spec = example("matmul_cpu.json");
    for (const char* bad : {"nan", "inf", "1e300", "0", "-1", "1e6x"}) {
        auto a = run_command({cli_path(), "autotune", spec, "--devices", "cpu", "--result-timeout", bad});
        EXPECT_EQ(a.exit_code, 2) << bad << ": " << a.err;
        EXPECT_NE(a.err.find("a duration in seconds"), std::string::npos) << bad << ": " << a.err;
        auto r = run_command({cli_path(), "rebench", "/nonexistent/m.py", "--timeout", bad});
        EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
        EXPECT_NE(r.err.find("a duration in seconds"), std::string::npos) << bad << ": " << r.err;
    }
}

}  // namespace
