// kiln-cli compile end to end: JSON fields, the reported command reproduces the key in Python,
// hits skip the compiler, eight concurrent CLIs compile once, compiler errors exit 1 with the text.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "test_support.hpp"

namespace {

using kiln::test::run_command;

struct CliCompile : ::testing::Test {
    kiln::test::ScratchDir dir{"cli_compile"};
    std::filesystem::path cxx = dir.path() / "counting-cxx";
    std::filesystem::path calls = dir.path() / "calls";
    std::filesystem::path cache = dir.path() / "cache";
    std::filesystem::path src = dir.path() / "add.cpp";

    void SetUp() override {
        std::ofstream(cxx) << "#!/bin/sh\n[ \"$1\" = --version ] && exec g++ --version\necho $$ >> '" << calls.string()
                           << "'\nsleep 0.3\nexec g++ \"$@\"\n";
        ::chmod(cxx.c_str(), 0755);
        std::ofstream(src) << "\nextern \"C\" int add(int a, int b) { return a + b; }\n";
        ::setenv("CXX", cxx.c_str(), 1);  // inherited by kiln-cli
    }
    int compiler_calls() const {
        std::ifstream in(calls);
        int n = 0;
        for (std::string l; std::getline(in, l);) ++n;
        return n;
    }
    kiln::test::CommandResult compile(std::vector<std::string> extra = {}) const {
        std::vector<std::string> argv{kiln::test::cli_path(), "compile",      src.string(),
                                      "--cache-dir",          cache.string(), "--json"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        return run_command(argv);
    }
};

TEST_F(CliCompile, JsonReportsKeyPathsHitAndTheKeysCommand) {
    auto first = compile({"--flag=-DKILN_TEST=1"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    auto j = nlohmann::json::parse(first.out);
    for (const char* field : {"key", "source", "output", "hit", "seconds", "command"})
        EXPECT_TRUE(j.contains(field)) << field;
    EXPECT_FALSE(j["hit"].get<bool>());
    EXPECT_TRUE(std::filesystem::exists(j["output"].get<std::string>()));
    EXPECT_NE(j["command"].get<std::string>().find("-DKILN_TEST=1"), std::string::npos);

    // Anyone can recompute the key: code_hash(source.strip(), command) in Python.
    auto py = run_command({"python3", "-c",
                           "import base64,hashlib,sys\n"
                           "src=open(sys.argv[1]).read().strip().encode(); cmd=sys.argv[2]\n"
                           "d=hashlib.sha256(src+b'||'+cmd.encode()).digest()\n"
                           "print('c'+base64.b32encode(d)[:51].decode().lower())",
                           src.string(), j["command"].get<std::string>()});
    ASSERT_EQ(py.exit_code, 0) << py.err;
    EXPECT_EQ(py.out, j["key"].get<std::string>() + "\n");

    auto second = compile({"--flag=-DKILN_TEST=1"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_TRUE(nlohmann::json::parse(second.out)["hit"].get<bool>());
    EXPECT_EQ(compiler_calls(), 1);

    auto forced = compile({"--flag=-DKILN_TEST=1", "--force"});
    ASSERT_EQ(forced.exit_code, 0) << forced.err;
    EXPECT_FALSE(nlohmann::json::parse(forced.out)["hit"].get<bool>());
    EXPECT_EQ(compiler_calls(), 2);
}

TEST_F(CliCompile, EightConcurrentInvocationsCompileOnce) {
    std::vector<pid_t> pids;
    for (int i = 0; i < 8; ++i) {
        pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            auto r = compile();
            _exit(r.exit_code);
        }
        pids.push_back(pid);
    }
    for (pid_t pid : pids) {
        int status = 0;
        waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    EXPECT_EQ(compiler_calls(), 1);
}

TEST_F(CliCompile, CompilerErrorExitsOneWithTheCompilersText) {
    std::ofstream(src, std::ios::trunc) << "int f() { return not_declared_anywhere; }\n";
    auto r = compile();
    EXPECT_EQ(r.exit_code, 1);
    auto j = nlohmann::json::parse(r.out);
    EXPECT_NE(j["compiler_output"].get<std::string>().find("not_declared_anywhere"), std::string::npos) << r.out;
    EXPECT_NE(j["error"].get<std::string>().find("exit status 1"), std::string::npos);
    EXPECT_NE(j["command"].get<std::string>().find(cxx.string()), std::string::npos);

    auto human = run_command({kiln::test::cli_path(), "compile", src.string(), "--cache-dir", cache.string()});
    EXPECT_EQ(human.exit_code, 1);
    EXPECT_NE(human.err.find("not_declared_anywhere"), std::string::npos) << human.err;
}

TEST_F(CliCompile, MissingSourceIsUsageError) {
    auto r = run_command(
        {kiln::test::cli_path(), "compile", (dir.path() / "nope.cpp").string(), "--cache-dir", cache.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("nope.cpp"), std::string::npos);
}

// The pids of live (not zombie) processes whose command line mentions `marker`.
std::vector<pid_t> processes_mentioning(const std::string& marker) {
    std::vector<pid_t> out;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream cmd(e.path() / "cmdline");
        std::string line((std::istreambuf_iterator<char>(cmd)), std::istreambuf_iterator<char>());
        if (line.find(marker) == std::string::npos) continue;
        std::ifstream stat(e.path() / "stat");
        std::string st;
        std::getline(stat, st);
        auto p = st.rfind(')');
        if (p != std::string::npos && st.size() > p + 2 && st[p + 2] == 'Z') continue;
        out.push_back(std::stoi(name));
    }
    return out;
}

// Issue 16.15: kill -9 of kiln-cli compile ends the compiler too, cc1plus included (the driver's own
// child, which PR_SET_PDEATHSIG on the driver alone left running for seconds or, here, forever).
TEST_F(CliCompile, KillingTheCliEndsTheWholeCompilerWithinASecond) {
    // Constant evaluation that never ends in practice keeps cc1plus busy until it is killed.
    std::ofstream(src, std::ios::trunc)
        << "constexpr long spin() { long s = 0; for (long i = 0; i < 4000000000000; ++i) s += i % 7; return s; }\n"
           "extern \"C\" long f() { constexpr long v = spin(); return v; }\n";
    const std::string cli = kiln::test::cli_path();
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::execl(cli.c_str(), cli.c_str(), "compile", src.c_str(), "--cache-dir", cache.c_str(),
                "--flag=-fconstexpr-ops-limit=1000000000000000", "--flag=-fconstexpr-loop-limit=2147483647",
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const std::string marker = cache.string();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool compiling = false;
    while (!compiling && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        for (pid_t p : processes_mentioning(marker)) {
            std::ifstream comm("/proc/" + std::to_string(p) + "/comm");
            std::string c;
            std::getline(comm, c);
            compiling = compiling || c == "cc1plus";
        }
    }
    EXPECT_TRUE(compiling) << "cc1plus never started";
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    std::vector<pid_t> left = processes_mentioning(marker);
    for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
         !left.empty() && std::chrono::steady_clock::now() < until; left = processes_mentioning(marker))
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(left.empty()) << left.size() << " compiler processes outlived kiln-cli by a second";
    for (pid_t p : left) ::kill(p, SIGKILL);  // never leave a spinning compiler behind
}

}  // namespace
