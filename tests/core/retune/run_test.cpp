// The re-tune run on the engine's CPU path: real kiln-workers through the TuningProcessPool, with
// each choice's request replaced by a test request, so that a crash, a hang and an error cost their
// choice only while the other choices are still measured and logged.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <unistd.h>

#include "decoy_root.hpp"
#include "hostile_names.hpp"
#include "opened_dir.hpp"
#include "retune/inventory.hpp"
#include "retune/run.hpp"
#include "test_support.hpp"
#include "timings/session_log_source.hpp"
#include "tuning/session_log.hpp"
#include "util/path_component.hpp"
#include "util/python_json.hpp"
#include "worker/tuning_pool.hpp"

namespace fs = std::filesystem;
using namespace kiln::retune;

TEST(RetuneRun, FaultsCostTheirChoiceOnlyAndTheRestIsMeasured) {
    kiln::test::ScratchDir dir("retune-run-faults");
    fs::copy(kiln::test::h100_root(), dir.path() / "inductor", fs::copy_options::recursive);
    RunOptions o;
    o.devices = "cpu";
    o.arch = 90;
    o.op_filter = "512, 512";
    o.timeout_s = 2;
    o.worker_path = kiln::test::worker_path();
    std::map<std::string, std::string> mode;  // choice -> test mode
    int triton_seen = 0;
    o.rewrite = [&](const RetuneChoice& c, kiln::worker::BenchmarkRequest& r) {
        r.kind = kiln::worker::RequestKind::test;
        r.test_mode = "value";
        r.test_value = c.recorded_ms.value_or(1);
        if (c.kind == ChoiceKind::triton) {
            ++triton_seen;
            if (triton_seen == 1) r.test_mode = "segfault";
            if (triton_seen == 2) r.test_mode = "hang";
            if (triton_seen == 3) r.test_mode = "error";
        }
        mode[c.name] = r.test_mode;
    };
    int callbacks = 0;
    o.on_measured = [&](const RetuneOp&, const RetuneChoice&, const Measurement&) { ++callbacks; };
    auto rep = run_retune(kiln::test::open_dir(dir.path() / "inductor"), o);
    ASSERT_TRUE(rep.ok()) << rep.error().str();
    ASSERT_EQ(rep->ops.size(), 1u);
    ASSERT_EQ(rep->devices.size(), 1u);
    EXPECT_EQ(rep->devices[0].index, -1);
    const auto& op = rep->ops[0];
    int ok = 0;
    for (const auto& c : op.choices) {
        ASSERT_EQ(c.measured.size(), 1u) << c.name;
        const Measurement& m = c.measured[0];
        const std::string& md = mode.at(c.name);
        if (md == "segfault") {
            EXPECT_EQ(m.status, "crashed");
            EXPECT_NE(m.why.find("signal"), std::string::npos) << m.why;
            EXPECT_FALSE(m.ms.has_value());
        } else if (md == "hang") {
            EXPECT_EQ(m.status, "timeout");
            EXPECT_NE(m.why.find("timeout"), std::string::npos) << m.why;
        } else if (md == "error") {
            EXPECT_EQ(m.status, "failed");
            EXPECT_NE(m.why.find("Failed to run"), std::string::npos) << m.why;
        } else {
            EXPECT_EQ(m.status, "ok") << c.name << ": " << m.why;
            ASSERT_TRUE(m.ms.has_value());
            EXPECT_DOUBLE_EQ(*m.ms, *c.recorded_ms);
            ++ok;
        }
    }
    EXPECT_EQ(ok, 17);
    EXPECT_EQ(callbacks, 20);

    // The session log holds every measurement, failures with their status.
    ASSERT_EQ(rep->session_logs.size(), 1u);
    auto log = kiln::timings::read_session_log(rep->session_logs[0]);
    ASSERT_TRUE(log.ok()) << log.error().str();
    EXPECT_TRUE(log->ended);
    EXPECT_EQ(log->measured, 20);
    ASSERT_EQ(log->ops.size(), 1u);
    EXPECT_EQ(log->ops[0].op, "mm");
    int failed = 0;
    for (const auto& c : log->ops[0].choices)
        if (!c.ms) ++failed;
    EXPECT_EQ(failed, 3);
}

TEST(RetuneRun, RequestsCarryTheLaunchOrTheCublasCall) {
    RetuneOp op;
    op.op = "mm";
    op.inputs = "[('cuda', 'torch.float16', 1024, 2048, 2048, 1, 0), ('cuda', 'torch.float16', 2048, 256, 256, 1, 0)]";
    op.precision = "highest";
    RetuneChoice t;
    t.name = "triton_mm-x";
    t.kind = ChoiceKind::triton;
    t.runnable = true;
    t.triton = kiln::worker::TritonBinary{};
    t.triton->cubin = "/k.cubin";
    t.grid = std::array<std::int64_t, 3>{32, 1, 1};
    t.args = {{"arg_A", "*fp16", "input:0", 0}};
    RunOptions o;
    auto r = request_for(op, t, o);
    ASSERT_TRUE(r.ok()) << r.error().str();
    EXPECT_EQ(r->kind, kiln::worker::RequestKind::triton);
    EXPECT_EQ(r->triton.grid[0], 32);
    ASSERT_EQ(r->inputs.size(), 2u);
    EXPECT_EQ(r->output.sizes, (std::vector<std::int64_t>{1024, 256}));
    // float16 at K = 2048: torch's rtol, atol raised to the accumulation's rounding.
    EXPECT_DOUBLE_EQ(r->tolerance.rtol, 1e-3);
    EXPECT_NEAR(r->tolerance.atol, 2048 * std::ldexp(1.0, -24) * 2, 1e-12);

    RetuneChoice e;
    e.name = "mm-y";
    e.kind = ChoiceKind::extern_op;
    e.runnable = true;
    e.gemm = kiln::cuda::GemmCall{};
    auto g = request_for(op, e, o);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(g->kind, kiln::worker::RequestKind::gemm);

    RetuneChoice other;
    other.name = "decompose_k";
    other.why = "not a known choice";
    auto bad = request_for(op, other, o);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message, "not a known choice");
}

TEST(RetuneRun, ToleranceFollowsTorchPerDtype) {
    auto f16 = tolerance_for(kiln::worker::DType::f16, 1, false);
    EXPECT_DOUBLE_EQ(f16.rtol, 1e-3);
    EXPECT_DOUBLE_EQ(f16.atol, 1e-5);
    auto bf16 = tolerance_for(kiln::worker::DType::bf16, 1, false);
    EXPECT_DOUBLE_EQ(bf16.rtol, 1.6e-2);
    auto f32 = tolerance_for(kiln::worker::DType::f32, 1, false);
    EXPECT_DOUBLE_EQ(f32.rtol, 1.3e-6);
    auto tf32 = tolerance_for(kiln::worker::DType::f32, 4096, true);
    EXPECT_GE(tf32.rtol, std::ldexp(1.0, -10));
    EXPECT_GT(tf32.atol, f32.atol);
    // addmm in bfloat16 at K = 1024: the H100 proof's elements 0.0012 apart near -0.0195 pass, an
    // output of zeros (values of magnitude ~12) does not.
    auto addmm = tolerance_for(kiln::worker::DType::bf16, 1024, false, true);
    EXPECT_GE(addmm.atol + addmm.rtol * 0.0195, 0.0012);
    EXPECT_LT(addmm.atol + addmm.rtol * 12, 12);
    EXPECT_LT(addmm.atol, 0.5);
    auto mm = tolerance_for(kiln::worker::DType::bf16, 1024, false, false);
    EXPECT_LT(mm.atol + mm.rtol * 0.0195, 0.0012);  // without a bias one rounding each: kept tight
    EXPECT_STREQ(measured_status(kiln::worker::BenchStatus::mismatch), "wrong");
    EXPECT_STREQ(measured_status(kiln::worker::BenchStatus::crash), "crashed");
}

// kiln-cli's run (wait_for_workers false): the report and every session log are complete when
// run_retune returns, while the workers may still be exiting; they are reaped on the pool's
// threads. The timeline says when each worker came up and answered.
TEST(RetuneRun, TheReportIsCompleteBeforeTheWorkersHaveExited) {
    kiln::test::ScratchDir dir("retune-run-release");
    fs::copy(kiln::test::h100_root(), dir.path() / "inductor", fs::copy_options::recursive);
    RunOptions o;
    o.devices = "cpu";
    o.arch = 90;
    o.op_filter = "512, 512";
    o.worker_path = kiln::test::worker_path();
    o.wait_for_workers = false;
    o.rewrite = [&](const RetuneChoice& c, kiln::worker::BenchmarkRequest& r) {
        r.kind = kiln::worker::RequestKind::test;
        r.test_mode = "slow_exit";  // a fixed value; the worker then lingers 3 s when told to exit
        r.test_value = c.recorded_ms.value_or(1);
        r.test_sleep_ms = 3000;
    };
    auto rep = run_retune(kiln::test::open_dir(dir.path() / "inductor"), o);
    ASSERT_TRUE(rep.ok()) << rep.error().str();
    ASSERT_EQ(rep->session_logs.size(), 1u);
    auto log = kiln::timings::read_session_log(rep->session_logs[0]);
    ASSERT_TRUE(log.ok()) << log.error().str();
    EXPECT_TRUE(log->ended);
    EXPECT_EQ(log->measured, 20);
    const auto& workers = rep->timeline.at("workers");
    ASSERT_EQ(workers.size(), 1u);
    const auto& w = workers[0];
    pid_t pid = w.at("pid").get<int>();
    EXPECT_TRUE(fs::exists("/proc/" + std::to_string(pid))) << "run_retune waited for the worker's exit";
    EXPECT_EQ(w.at("results").at("count").get<int>(), 20);
    EXPECT_LE(w.at("up_s").get<double>(), w.at("ready_s").get<double>());
    EXPECT_LE(w.at("ready_s").get<double>(), w.at("results").at("first_s").get<double>());
    EXPECT_LE(rep->timeline.at("inventory").get<double>(), rep->timeline.at("choices_done").get<double>());
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (fs::exists("/proc/" + std::to_string(pid)) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(fs::exists("/proc/" + std::to_string(pid))) << "the released worker was not reaped";
    kiln::worker::TuningProcessPool::release(nullptr);  // joins the finished pool's threads
}

// issue 42 #4: the op name comes from the timing cache, and a session log's path was built from it:
// `x/../../../../outside/pwn` put the log outside the cache. The file name is now an escaped form
// (util/path_component); the real name is inside the log, where every reader takes it from.
TEST(RetuneRun, AnOpKeyThatLooksLikeAPathNamesNoPath) {
    for (const std::string& hostile :
         {std::string("x/../../.../outside/pwn"), std::string("x/../../../../outside/pwn")}) {
        kiln::test::ScratchDir dir("retune-run-op-path");
        const fs::path root = dir.path() / "a" / "b" / "inductor";
        fs::create_directories(root.parent_path());
        fs::copy(kiln::test::h100_root(), root, fs::copy_options::recursive);
        for (const auto& e : fs::directory_iterator(root / "cache")) {
            auto j = kiln::py_loads(kiln::test::read_file(e.path())).value();
            j["cache"][hostile] = j["cache"]["mm"];
            j["cache"].erase("mm");
            std::ofstream(e.path(), std::ios::trunc) << kiln::py_dumps(j, {.indent = 4});
        }
        RunOptions o;
        o.devices = "cpu";
        o.arch = 90;
        o.op_filter = "512, 512";
        o.worker_path = kiln::test::worker_path();
        o.rewrite = [&](const RetuneChoice& c, kiln::worker::BenchmarkRequest& r) {
            r.kind = kiln::worker::RequestKind::test;
            r.test_mode = "value";
            r.test_value = c.recorded_ms.value_or(1);
        };
        auto rep = run_retune(kiln::test::open_dir(root), o);
        ASSERT_TRUE(rep.ok()) << rep.error().str();
        ASSERT_EQ(rep->ops.size(), 1u);
        EXPECT_EQ(rep->ops[0].op, hostile);
        // No problem is known for such an op, so nothing is measured and, since a run that measures
        // nothing writes nothing (issue 41 #4), there is no session log at all; where one is written
        // its name is escaped and it lies in kiln/autotune (ASessionLogOfAHostileOpKeyLandsInTheCache).
        for (const auto& l : rep->session_logs) EXPECT_EQ(fs::path(l).parent_path(), root / "kiln" / "autotune") << l;
        // Nothing anywhere else: no "outside" folder, no "retune-x" folder.
        for (const auto& e : fs::recursive_directory_iterator(dir.path())) {
            const std::string name = e.path().filename().string();
            const bool a_log = e.path().parent_path() == root / "kiln" / "autotune";
            EXPECT_TRUE(a_log ||
                        (name != "outside" && name.find("pwn") == std::string::npos && name.rfind("retune-x", 0) != 0))
                << e.path();
        }
        EXPECT_FALSE(fs::exists(dir.path() / "outside"));
        EXPECT_FALSE(fs::exists(root.parent_path() / "outside"));
    }
}

// Why a report measured nothing, in one set of words for kiln-cli and the GUI (issue 41): the
// fixture's inventory (what `retune --list` prints without a GPU) names the no-GPU workflow.
TEST(RetuneRun, NothingMeasuredSaysWhy) {
    InventoryOptions o;
    o.arch = 90;
    auto inv = inventory(kiln::test::open_dir(kiln::test::h100_root()), o);
    ASSERT_TRUE(inv) << inv.error().str();
    auto why = nothing_measured(*inv);
    ASSERT_TRUE(why);
    EXPECT_EQ(why->message.rfind("nothing was measured: this report is an inventory", 0), 0u) << why->message;
    EXPECT_EQ(why->hint, no_gpu_error("").hint);
    EXPECT_NE(why->hint.find("kiln-cli retune ROOT --list"), std::string::npos);
    // A run on a GPU that measured nothing: its choices cannot run, the first reason as the hint.
    RetuneReport none = *inv;
    none.devices.push_back({0, "NVIDIA H100 80GB HBM3", "sm_90"});
    for (auto& op : none.ops)
        for (auto& c : op.choices) {
            c.runnable = false;
            c.why = "no compiled kernel in the Triton cache names this module";
        }
    why = nothing_measured(none);
    ASSERT_TRUE(why);
    EXPECT_EQ(why->message, "nothing was measured: none of the 41 choices can run here");
    EXPECT_NE(why->hint.find("no compiled kernel"), std::string::npos) << why->hint;
    none.ops.clear();
    ASSERT_TRUE(nothing_measured(none));
    EXPECT_NE(nothing_measured(none)->message.find("no autotuned op"), std::string::npos);
    // One measurement: nothing to explain.
    RetuneReport one = *inv;
    one.devices = none.devices;
    one.ops[0].choices[0].measured.push_back({});
    EXPECT_FALSE(nothing_measured(one));
}

// Issue 42 #4 where the path is built: the run above cannot reach the session log with a hostile op
// key (such an op measures nothing, so it gets no log), so each key here goes through the path
// run_retune opens its log at, and the log is opened and written there. It lands in
// <root>/kiln/autotune under an escaped name that holds no '/', and nothing is created anywhere else;
// the whole key is inside the log.
TEST(RetuneRun, ASessionLogOfAHostileOpKeyLandsInTheCache) {
    kiln::test::ScratchDir dir("retune-log-path");
    const std::vector<std::string> keys = kiln::test::hostile_path_names(dir.path());
    const fs::path root = dir.path() / "a" / "b" / "inductor";
    const fs::path logs = root / "kiln" / "autotune";
    fs::create_directories(root);
    const std::string stamp = "20261128T003638Z";
    std::set<fs::path> made;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const fs::path p = retune_session_log_path(root, keys[i], i, stamp, 4242);
        EXPECT_EQ(p.parent_path(), logs) << p;
        const std::string name = p.filename().string();
        EXPECT_EQ(name,
                  "retune-" + kiln::file_name_part(keys[i]) + "-" + std::to_string(i) + "-" + stamp + "-4242.jsonl");
        EXPECT_TRUE(kiln::is_plain_file_name(name)) << name;
        auto log = kiln::tuning::SessionLog::open(p);
        ASSERT_TRUE(log.ok()) << log.error().str();
        log->write("session_start", {{"op", keys[i]}});
        made.insert(p);
    }
    EXPECT_EQ(made.size(), keys.size());  // one log for each key
    EXPECT_EQ(retune_session_log_path(root, "mm", 3, stamp, 7), logs / ("retune-mm-3-" + stamp + "-7.jsonl"));
    // Nothing but the logs and the folders that hold them.
    kiln::test::expect_only_entries(dir.path(), {dir.path() / "a", dir.path() / "a" / "b", root, root / "kiln", logs},
                                    made);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        std::ifstream in(retune_session_log_path(root, keys[i], i, stamp, 4242));
        std::string line;
        ASSERT_TRUE(std::getline(in, line)) << i;
        auto j = nlohmann::json::parse(line, nullptr, false);
        ASSERT_TRUE(j.is_object()) << line;
        EXPECT_EQ(j.value("op", std::string("?")), keys[i]) << line;
    }
}

// Issue 44: a run reads the cache beneath the root as opened (the inventory, and each worker through
// the descriptor it inherits, kiln-worker --root-fd) and writes its session logs there too: the root
// renamed away after the open and a decoy put at its path, the run still measures the opened cache's
// op, every request's binary is relative to the root the workers were given, and nothing is written
// into the decoy.
TEST(RetuneRun, ReadsAndLogsBeneathTheOpenedRootNotItsPath) {
    kiln::test::ScratchDir dir("retune-run-decoy");
    const kiln::test::DecoyedRoot d = kiln::test::open_h100_root_then_decoy(dir);
    const fs::path &root = d.root, &moved = d.moved;
    const kiln::test::OpenedDir& opened = d.opened;
    ASSERT_TRUE(opened.fd.valid());
    RunOptions o;
    o.devices = "cpu";
    o.arch = 90;
    o.op_filter = "512, 512";
    o.worker_path = kiln::test::worker_path();
    int triton = 0;
    o.rewrite = [&](const RetuneChoice& c, kiln::worker::BenchmarkRequest& r) {
        if (r.kind == kiln::worker::RequestKind::triton) {
            ++triton;
            EXPECT_FALSE(fs::path(r.triton.binary.cubin).is_absolute()) << r.triton.binary.cubin;
            EXPECT_TRUE(fs::is_regular_file(moved / r.triton.binary.cubin)) << r.triton.binary.cubin;
        }
        r.kind = kiln::worker::RequestKind::test;
        r.test_mode = "value";
        r.test_value = c.recorded_ms.value_or(1);
    };
    auto rep = run_retune(opened, o);
    ASSERT_TRUE(rep.ok()) << rep.error().str();
    ASSERT_EQ(rep->ops.size(), 1u) << "the run read the decoy's timing cache";
    EXPECT_EQ(rep->ops[0].op, "mm");
    EXPECT_EQ(triton, 19);
    for (const auto& c : rep->ops[0].choices) {
        ASSERT_EQ(c.measured.size(), 1u) << c.name;
        EXPECT_EQ(c.measured[0].status, "ok") << c.name << ": " << c.measured[0].why;
    }
    ASSERT_EQ(rep->session_logs.size(), 1u);
    const fs::path log = rep->session_logs[0];
    EXPECT_EQ(log.parent_path(), root / "kiln" / "autotune") << "the log names the root as it was opened";
    EXPECT_TRUE(fs::is_regular_file(moved / "kiln" / "autotune" / log.filename())) << log;
    EXPECT_FALSE(fs::exists(root / "kiln")) << "the run wrote into the decoy";
}
