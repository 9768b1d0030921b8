// kiln-cli autotune on the shipped CPU examples: JSON output, persistence, a full cache hit on the
// second run, usage errors, and no worker left behind when kiln-cli itself is SIGKILLed.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using kiln::test::run_command;

namespace {

std::string example_spec(const char* name) { return (kiln::test::source_dir() / "resources/examples" / name).string(); }

bool process_gone(pid_t pid) {
    if (kill(pid, 0) != 0) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    auto p = line.rfind(')');
    return p != std::string::npos && line.size() > p + 2 && line[p + 2] == 'Z';
}

}  // namespace

TEST(CliAutotune, CpuExampleTunesPersistsAndHitsTheCacheTheSecondTime) {
    kiln::test::ScratchDir dir("cli-autotune");
    auto first = run_command({kiln::test::cli_path(), "autotune", example_spec("reduction_cpu.json"), "--devices",
                              "cpu", "--cache-dir", dir.path().string(), "--json"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    auto j = nlohmann::json::parse(first.out);
    EXPECT_EQ(j["op"], "kiln_row_sum_cpu");
    EXPECT_EQ(j["inputs_key"], "[('cpu', 'torch.float32', 256, 4096, 4096, 1, 0)]");
    EXPECT_EQ(j["device"], "cpu");
    EXPECT_FALSE(j["cache_hit"].get<bool>());
    ASSERT_TRUE(j["timings"].contains(j["best"].get<std::string>()));
    for (auto& [k, v] : j["timings"].items()) EXPECT_TRUE(v.is_number()) << k;
    EXPECT_TRUE(j["failures"].empty());
    EXPECT_TRUE(fs::exists(j["session_log"].get<std::string>()));
    EXPECT_TRUE(fs::exists(j["cache_file"].get<std::string>()));
    EXPECT_NE(first.err.find("AUTOTUNE kiln_row_sum_cpu(256x4096)"), std::string::npos) << first.err;

    auto second = run_command({kiln::test::cli_path(), "autotune", example_spec("reduction_cpu.json"), "--cache-dir",
                               dir.path().string(), "--json", "--quiet"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    auto k = nlohmann::json::parse(second.out);
    EXPECT_TRUE(k["cache_hit"].get<bool>());
    EXPECT_EQ(k["timings"], j["timings"]);
    EXPECT_EQ(k["best"], j["best"]);
}

TEST(CliAutotune, UsageErrorsExitWithTwo) {
    kiln::test::ScratchDir dir("cli-autotune-usage");
    auto missing = run_command({kiln::test::cli_path(), "autotune", (dir.path() / "nope.json").string()});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("cannot read the tuning spec"), std::string::npos) << missing.err;
    auto wrong_device = run_command({kiln::test::cli_path(), "autotune", example_spec("matmul_cpu.json"), "--devices",
                                     "0", "--cache-dir", dir.path().string()});
    EXPECT_EQ(wrong_device.exit_code, 2);
    EXPECT_NE(wrong_device.err.find("C++ kernels run on the CPU"), std::string::npos) << wrong_device.err;
}

TEST(CliAutotune, StrategyBudgetAndSecondsReplaceTheSpecs) {
    // reduction_cpu.json is exhaustive over 7 allowed choices; the options make it a sample of 3.
    kiln::test::ScratchDir dir("cli-autotune-strategy");
    auto r = run_command({kiln::test::cli_path(), "autotune", example_spec("reduction_cpu.json"), "--cache-dir",
                          (dir.path() / "a").string(), "--strategy", "random", "--budget", "3", "--json", "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["choices"].size(), 3u) << r.out;
    auto all = run_command({kiln::test::cli_path(), "autotune", example_spec("reduction_cpu.json"), "--cache-dir",
                            (dir.path() / "b").string(), "--json", "--quiet"});
    ASSERT_EQ(all.exit_code, 0) << all.err;
    EXPECT_EQ(nlohmann::json::parse(all.out)["choices"].size(), 7u);
    // A time budget spent at once: the first round is measured, the rest skipped and saying why.
    auto timed = run_command({kiln::test::cli_path(), "autotune", example_spec("reduction_cpu.json"), "--cache-dir",
                              (dir.path() / "c").string(), "--seconds", "0.001", "--json", "--quiet"});
    ASSERT_EQ(timed.exit_code, 0) << timed.err;
    int skipped = 0;
    const auto t = nlohmann::json::parse(timed.out);
    for (const auto& [key, c] : t["choices"].items())
        skipped += c["status"] == "skipped" && t["failures"].value(key, "") == "time budget spent";
    EXPECT_GT(skipped, 0) << timed.out;
}

TEST(CliAutotune, BadStrategyOptionsSayWhatIsWrong) {
    kiln::test::ScratchDir dir("cli-autotune-strategy-usage");
    auto run = [&](std::vector<std::string> extra) {
        std::vector<std::string> argv{kiln::test::cli_path(), "autotune",          example_spec("reduction_cpu.json"),
                                      "--cache-dir",          dir.path().string(), "--quiet"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        return run_command(argv);
    };
    auto kind = run({"--strategy", "greedy"});
    EXPECT_EQ(kind.exit_code, 2);
    EXPECT_NE(kind.err.find("a strategy is exhaustive or random, not 'greedy'"), std::string::npos) << kind.err;
    auto negative = run({"--strategy", "random", "--budget", "-1"});
    EXPECT_EQ(negative.exit_code, 2);
    EXPECT_NE(negative.err.find("a budget is a whole number of choices"), std::string::npos) << negative.err;
    auto exhaustive = run({"--budget", "3"});  // the spec's strategy is exhaustive: a budget would be ignored
    EXPECT_EQ(exhaustive.exit_code, 2);
    EXPECT_NE(exhaustive.err.find("--budget limits a random search"), std::string::npos) << exhaustive.err;
    EXPECT_NE(exhaustive.err.find("--strategy random"), std::string::npos) << exhaustive.err;
    auto seconds = run({"--seconds", "0"});
    EXPECT_EQ(seconds.exit_code, 2);
    EXPECT_NE(seconds.err.find("a duration in seconds"), std::string::npos) << seconds.err;
    EXPECT_FALSE(fs::exists(dir.path() / "kiln")) << "nothing may run on a usage error";
    auto help = run_command({kiln::test::cli_path(), "autotune", "--help"});
    for (const char* opt : {"--strategy", "--budget", "--seconds"})
        EXPECT_NE(help.out.find(opt), std::string::npos) << opt << "\n" << help.out;
}

TEST(CliAutotune, CudaExampleOnAMachineWithoutADriverSaysSo) {
    if (fs::exists("/dev/nvidiactl")) GTEST_SKIP() << "a GPU machine: the CUDA examples run in the GPU job";
    kiln::test::ScratchDir dir("cli-autotune-nocuda");
    auto r = run_command({kiln::test::cli_path(), "autotune", example_spec("matmul_cuda.json"), "--devices", "0",
                          "--cache-dir", dir.path().string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no CUDA driver"), std::string::npos) << r.err;
}

TEST(CliAutotune, NoWorkerIsLeftWhenTheCliIsKilled) {
    kiln::test::ScratchDir dir("cli-autotune-kill");
    // A spec whose second choice hangs: kiln-cli waits on its worker when we kill it.
    fs::path spec = dir.path() / "hang.json";
    std::ofstream(spec) << R"({"op": "hang", "kernel_name": "k", "extra_args": [8],
      "inputs": [{"dtype": "float32", "sizes": [8]}], "output": {"dtype": "float32", "sizes": [8]},
      "params": {"HANG": [0, 1]}, "reference": {"HANG": 0}, "timing": {"warmup_ms": 1, "rep_ms": 2},
      "template": "#include <unistd.h>\n#include <cstdint>\nextern \"C\" void k(const float* x, float* y, std::int64_t n) { if (HANG) for (;;) pause(); for (std::int64_t i = 0; i < n; ++i) y[i] = x[i]; }\n"})";
    fs::path log = dir.path() / "session.jsonl";
    pid_t cli = fork();
    ASSERT_GE(cli, 0);
    if (cli == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        std::string cli_path = kiln::test::cli_path();
        execl(cli_path.c_str(), cli_path.c_str(), "autotune", spec.c_str(), "--devices", "cpu,cpu", "--cache-dir",
              dir.path().c_str(), "--session-log", log.c_str(), "--result-timeout", "600", nullptr);
        _exit(127);
    }
    // Wait until both workers have started and the hanging choice is running.
    std::vector<pid_t> workers;
    auto deadline = std::chrono::steady_clock::now() + 60s;
    bool reference_done = false;
    while (std::chrono::steady_clock::now() < deadline && !(workers.size() == 2 && reference_done)) {
        std::this_thread::sleep_for(50ms);
        workers.clear();
        reference_done = false;
        std::ifstream in(log);
        for (std::string line; std::getline(in, line);) {
            auto j = nlohmann::json::parse(line, nullptr, false);
            if (j.is_discarded()) continue;
            if (j["event"] == "worker_started") workers.push_back(j["pid"].get<pid_t>());
            if (j["event"] == "measurement" && j["reference"].get<bool>()) reference_done = true;
        }
    }
    ASSERT_EQ(workers.size(), 2u);
    ASSERT_TRUE(reference_done);
    std::this_thread::sleep_for(200ms);
    kill(cli, SIGKILL);
    waitpid(cli, nullptr, 0);
    deadline = std::chrono::steady_clock::now() + 5s;
    for (pid_t w : workers) {
        while (!process_gone(w) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
        EXPECT_TRUE(process_gone(w)) << "kiln-worker " << w << " outlived kiln-cli";
    }
}
