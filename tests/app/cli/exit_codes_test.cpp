// HACKING.md's exit status rule, for every subcommand: a file that does not exist and an argument
// that is malformed are bad input (2); work that fails on real input is 1 (frontend/exit_code.hpp).
#include <gtest/gtest.h>

#include <fstream>

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
    };
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
}

}  // namespace
