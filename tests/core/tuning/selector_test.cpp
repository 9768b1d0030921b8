#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "test_support.hpp"
#include "tuning/selector.hpp"
#include "tuning/timing_cache.hpp"

namespace fs = std::filesystem;
using namespace kiln::tuning;
using namespace kiln::worker;
using kiln::inductor::cpu_system;
using kiln::inductor::make_system;
using namespace std::chrono_literals;

namespace {

TuneOptions options_for(const fs::path& root) {
    TuneOptions o;
    o.cache_root = root;
    o.worker_path = kiln::test::worker_path();
    o.compile_workers = 2;
    o.timeouts.result = 3s;
    o.timeouts.graceful = 300ms;
    o.timeouts.terminate = 300ms;
    return o;
}

TuningSpec example(const char* name) {
    auto s = load_spec(kiln::test::source_dir() / "resources/examples" / name);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().str());
    return *s;
}

std::vector<nlohmann::json> read_log(const fs::path& p) {
    std::vector<nlohmann::json> lines;
    std::ifstream in(p);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    return lines;
}

// A CPU kernel whose parameter MODE makes it misbehave: 1 segfault, 2 abort, 3 hang, 4 wrong answer.
TuningSpec misbehaving_spec() {
    auto j = nlohmann::json::parse(R"({
      "op": "kiln_test_bad", "kernel_name": "scale",
      "inputs": [{"dtype": "float32", "sizes": [64]}], "output": {"dtype": "float32", "sizes": [64]},
      "extra_args": [64], "params": {"MODE": [0, 1, 2, 3, 4, 5]}, "reference": {"MODE": 0},
      "timing": {"warmup_ms": 1, "rep_ms": 2}
    })");
    j["template"] = R"(
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <unistd.h>
extern "C" void scale(const float* x, float* y, std::int64_t n) {
    if (MODE == 1) { std::signal(SIGSEGV, SIG_DFL); std::raise(SIGSEGV); }
    if (MODE == 2) std::abort();
    if (MODE == 3) for (;;) pause();
    for (std::int64_t i = 0; i < n; ++i) y[i] = 2.0f * x[i] + (MODE == 4 ? 0.5f : 0.0f);
}
)";
    auto s = parse_spec(j, ".");
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().str());
    return *s;
}

}  // namespace

TEST(Selector, CpuExamplesTuneEndToEndPersistAndThenHitTheCache) {
    kiln::test::ScratchDir dir("sel-examples");
    for (const char* name : {"matmul_cpu.json", "reduction_cpu.json"}) {
        TuningSpec spec = example(name);
        auto first = tune(spec, options_for(dir.path()));
        ASSERT_TRUE(first.ok()) << name << ": " << first.error().str();
        EXPECT_FALSE(first->cache_hit);
        ASSERT_FALSE(first->best.empty());
        for (const auto& c : first->choices) {
            EXPECT_EQ(c.status, ChoiceStatus::ok) << c.name << ": " << c.reason;
            EXPECT_GT(c.ms, 0);
            EXPECT_TRUE(std::isfinite(c.ms));
            EXPECT_EQ(c.device, "cpu");
            EXPECT_GE(c.stats.count, 5);
        }
        // Persisted in Inductor's layout under the CPU system hash.
        TimingCache cache(dir.path(), cpu_system());
        auto stored = cache.lookup({spec.op, first->inputs_key, "highest"});
        ASSERT_TRUE(stored.ok());
        EXPECT_EQ(stored->size(), first->choices.size());
        EXPECT_EQ(first->cache_file, cache.local_path());
        // Every measurement is in the session log.
        auto log = read_log(first->session_log);
        size_t measurements = 0;
        for (const auto& l : log) measurements += l["event"] == "measurement";
        EXPECT_EQ(measurements, first->choices.size());
        EXPECT_EQ(log.front()["event"], "session_start");
        EXPECT_EQ(log.back()["event"], "session_end");

        auto second = tune(spec, options_for(dir.path()));
        ASSERT_TRUE(second.ok());
        EXPECT_TRUE(second->cache_hit) << name;
        EXPECT_EQ(second->best, first->best);
        EXPECT_EQ(second->bench_seconds, 0.0);  // nothing benchmarked
        for (const auto& c : second->choices) EXPECT_TRUE(c.from_cache);
    }
}

TEST(Selector, BadChoicesScoreInfinityWithTheirReasons) {
    kiln::test::ScratchDir dir("sel-bad");
    TuningSpec spec = misbehaving_spec();
    auto t0 = std::chrono::steady_clock::now();
    auto rep = tune(spec, options_for(dir.path()));
    ASSERT_TRUE(rep.ok()) << rep.error().str();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 60s);
    std::map<std::int64_t, const ChoiceReport*> by_mode;
    for (const auto& c : rep->choices) by_mode[c.params.at("MODE")] = &c;
    EXPECT_EQ(by_mode[0]->status, ChoiceStatus::ok);
    EXPECT_EQ(by_mode[5]->status, ChoiceStatus::ok);
    EXPECT_EQ(by_mode[1]->status, ChoiceStatus::crash);
    EXPECT_NE(by_mode[1]->reason.find("SIGSEGV"), std::string::npos) << by_mode[1]->reason;
    EXPECT_EQ(by_mode[2]->status, ChoiceStatus::crash);
    EXPECT_NE(by_mode[2]->reason.find("SIGABRT"), std::string::npos) << by_mode[2]->reason;
    EXPECT_EQ(by_mode[3]->status, ChoiceStatus::timeout);
    EXPECT_EQ(by_mode[4]->status, ChoiceStatus::mismatch);
    EXPECT_NE(by_mode[4]->reason.find("mismatch"), std::string::npos);
    for (int m : {1, 2, 3, 4}) EXPECT_TRUE(std::isinf(by_mode[m]->ms)) << m;
    std::set<std::string> best_ok{by_mode[0]->key, by_mode[5]->key};
    EXPECT_TRUE(best_ok.count(rep->best));
    auto table = format_autotune_table(*rep, spec);
    EXPECT_NE(table.find("AUTOTUNE kiln_test_bad(64)"), std::string::npos) << table;
    EXPECT_NE(table.find("SubProcess AUTOTUNE benchmarking takes"), std::string::npos);
}

TEST(Selector, InProcessGivesTheSameWinnerShape) {
    kiln::test::ScratchDir dir("sel-inproc");
    TuningSpec spec = example("reduction_cpu.json");
    auto o = options_for(dir.path());
    o.in_process = true;
    auto rep = tune(spec, o);
    ASSERT_TRUE(rep.ok()) << rep.error().str();
    EXPECT_TRUE(rep->workers.empty());
    for (const auto& c : rep->choices) EXPECT_EQ(c.status, ChoiceStatus::ok) << c.reason;
    EXPECT_NE(format_autotune_table(*rep, spec).find("SingleProcess AUTOTUNE"), std::string::npos);
}

TEST(Selector, CudaSpecWithoutADriverIsAClearError) {
    if (std::filesystem::exists("/dev/nvidiactl")) GTEST_SKIP() << "a GPU machine: covered by the GPU run";
    kiln::test::ScratchDir dir("sel-nocuda");
    auto o = options_for(dir.path());
    o.devices = {Device{0}};
    auto rep = tune(example("matmul_cuda.json"), o);
    ASSERT_FALSE(rep.ok());
    EXPECT_NE(rep.error().str().find("CUDA"), std::string::npos) << rep.error().str();
}

TEST(Selector, ATimeBudgetStopsStartingChoicesAndSaysWhichWereSkipped) {
    // 16 sampled choices of about 20 ms a run (at least 10 runs each: about 0.2 s a choice) on one
    // worker, with a 0.5 s budget: the first rounds run, the rest are skipped with the reason.
    auto j = nlohmann::json::parse(R"({
      "op": "kiln_test_budget", "kernel_name": "slow",
      "inputs": [{"dtype": "float32", "sizes": [16]}], "output": {"dtype": "float32", "sizes": [16]},
      "extra_args": [16], "params": {"K": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]},
      "reference": {"K": 0}, "timing": {"warmup_ms": 1, "rep_ms": 2},
      "strategy": {"kind": "random", "seconds": 0.5, "seed": 3}
    })");
    j["template"] = R"(
#include <chrono>
#include <cstdint>
#include <thread>
extern "C" void slow(const float* x, float* y, std::int64_t n) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] + 0.0f * K;
}
)";
    auto spec = parse_spec(j, ".");
    ASSERT_TRUE(spec.ok()) << spec.error().str();
    kiln::test::ScratchDir dir("sel-budget");
    TuneOptions o = options_for(dir.path());
    o.devices = {Device{}};
    auto rep = tune(*spec, o);
    ASSERT_TRUE(rep.ok()) << rep.error().str();
    int ok = 0, skipped = 0;
    for (const auto& c : rep->choices) {
        if (c.status == ChoiceStatus::ok) ++ok;
        if (c.status == ChoiceStatus::skipped) {
            ++skipped;
            EXPECT_EQ(c.reason, "time budget spent");
            EXPECT_TRUE(std::isinf(c.ms));
        }
    }
    EXPECT_EQ(ok + skipped, 17);
    EXPECT_GE(ok, 2);       // the reference and at least one round
    EXPECT_GE(skipped, 6);  // 16 choices cannot fit in 0.5 s at 0.2 s each
    // Skipped choices are not persisted: a later session may still measure them.
    TimingCache cache(dir.path(), cpu_system());
    auto stored = cache.lookup({"kiln_test_budget", rep->inputs_key, rep->precision});
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(static_cast<int>(stored->size()), ok);
}
