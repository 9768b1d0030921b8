// --write: measured ops into torch's timing cache file, on copies of the fixtures.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include "decoy_root.hpp"
#include "handback/measured_op.hpp"
#include "handback/timing_cache_write.hpp"
#include "opened_dir.hpp"
#include "retune_run_fixture.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace kiln::handback;
using kiln::test::read_file;

namespace {

const std::string kH100Hash = "NVIDIA H100 80GB HBM3";
const std::string kH200 = "NVIDIA H200";

RetuneRun run_for(const fs::path& cache_file, const std::string& device, double factor = 0.9) {
    return run_from_json(kiln::test::run_json_from_cache_file(cache_file, device, factor), "test").value();
}

fs::path copy_root(const kiln::test::ScratchDir& d, const fs::path& from) {
    fs::copy(from / "cache", d.path() / "cache", fs::copy_options::recursive);
    return d.path();
}

}  // namespace

// torch's file name rule, checked against both fixture files: sha256(json.dumps(system, sort_keys))
// of {"device": {"name"}, "version": {"triton", "cuda"}}.
TEST(SystemHash, ReproducesTheFixturesFileNames) {
    int seen = 0;
    for (const auto& e : fs::directory_iterator(kiln::test::h100_h200_root() / "cache")) {
        auto file = kiln::py_loads(read_file(e.path())).value();
        MeasuredOp op;
        op.device_name = file["system"]["device"]["name"].get<std::string>();
        op.versions = {file["system"]["version"]["triton"].get<std::string>(),
                       file["system"]["version"]["cuda"].get<std::string>(), "test"};
        EXPECT_EQ(op.system_hash(), e.path().filename().string()) << op.device_name;
        EXPECT_EQ(kiln::py_dumps(op.system()), kiln::py_dumps(file["system"]));  // same dict, same order
        ++seen;
    }
    EXPECT_EQ(seen, 2);
    EXPECT_TRUE(fs::exists(kiln::test::h100_h200_root() / "cache" /
                           "c33ff64252de0fc95aafeb63c22d2f93666cf684f9102841c20702613368c40d"));
}

// One op re-measured on the H100: its times change, the other op keeps its bytes, and the file is
// still what json.dumps(indent=4) writes.
TEST(WriteTimingCache, ReplacesOneOpAndKeepsTheOthersBytes) {
    kiln::test::ScratchDir d("hb-write-one");
    fs::path root = copy_root(d, kiln::test::h100_root());
    fs::path file = kiln::test::cache_file_for(root, kH100Hash);
    const std::string before = read_file(file);
    RetuneRun run = run_for(file, kH100Hash);
    ASSERT_EQ(run.ops.size(), 2u);
    const std::string second_key = kiln::py_dumps(nlohmann::ordered_json(run.ops[1].inputs));
    run.ops.pop_back();  // only the 512x512 op was re-tuned
    auto sel = complete_ops(run, std::nullopt);
    ASSERT_EQ(sel.ops.size(), 1u);
    EXPECT_TRUE(sel.skipped.empty());
    auto report = write_timing_cache(kiln::test::open_dir(root), sel.ops);
    ASSERT_TRUE(report) << report.error().str();
    ASSERT_EQ(report->files.size(), 1u);
    EXPECT_EQ(report->files[0].path, file.string());
    EXPECT_EQ(report->files[0].replaced, 1);
    EXPECT_FALSE(report->files[0].created);
    EXPECT_NE(report->files[0].versions_from.find("recorded file cache/2b00ebb9"), std::string::npos);
    const std::string after = read_file(file);
    EXPECT_NE(after, before);
    ASSERT_NE(before.find(second_key), std::string::npos);
    EXPECT_EQ(after.substr(after.find(second_key)), before.substr(before.find(second_key)));
    auto j = kiln::py_loads(after).value();
    EXPECT_EQ(kiln::py_dumps(j, {.indent = 4}), after);
    const auto& slot = j["cache"]["mm"][run.ops[0].inputs]["highest"];
    ASSERT_EQ(slot.size(), run.ops[0].choices.size());
    for (const auto& c : run.ops[0].choices) EXPECT_DOUBLE_EQ(slot[c.name].get<double>(), *c.measured[0].ms);
}

// Re-tuned on an H200: a new file named by the H200's system (the fixture's own H200 name), the
// H100's file untouched.
TEST(WriteTimingCache, AnotherGpuKindGetsItsOwnFile) {
    kiln::test::ScratchDir d("hb-write-h200");
    fs::path root = copy_root(d, kiln::test::h100_root());
    fs::path h100_file = kiln::test::cache_file_for(root, kH100Hash);
    const std::string h100_before = read_file(h100_file);
    auto sel = complete_ops(run_for(h100_file, kH200, 0.8), std::nullopt);
    ASSERT_EQ(sel.ops.size(), 2u);
    auto report = write_timing_cache(kiln::test::open_dir(root), sel.ops);
    ASSERT_TRUE(report) << report.error().str();
    ASSERT_EQ(report->files.size(), 1u);
    EXPECT_TRUE(report->files[0].created);
    EXPECT_EQ(report->files[0].device, kH200);
    EXPECT_EQ(report->files[0].added, 2);
    EXPECT_EQ(fs::path(report->files[0].path).filename(),
              "c33ff64252de0fc95aafeb63c22d2f93666cf684f9102841c20702613368c40d");
    EXPECT_EQ(read_file(h100_file), h100_before);
    auto j = kiln::py_loads(read_file(report->files[0].path)).value();
    EXPECT_EQ(j["system"]["device"]["name"], kH200);
    EXPECT_EQ(j["system"]["hash"], "c33ff64252de0fc95aafeb63c22d2f93666cf684f9102841c20702613368c40d");
}

// A choice that failed (or was not measured) on the device: torch would benchmark the op again, so
// the op is skipped with why, and nothing is written for it.
TEST(CompleteOps, AnOpWithAFailedChoiceIsSkippedWithWhy) {
    fs::path file = kiln::test::cache_file_for(kiln::test::h100_root(), kH100Hash);
    auto j = kiln::test::run_json_from_cache_file(file, kH100Hash);
    auto& m = j["ops"][0]["choices"][3]["measured"][0];
    m["status"] = "failed";
    m["why"] = "out of shared memory";
    j["ops"][1]["choices"][0]["measured"] = nlohmann::ordered_json::array();
    auto sel = complete_ops(run_from_json(j, "test").value(), std::nullopt);
    EXPECT_TRUE(sel.ops.empty());
    ASSERT_EQ(sel.skipped.size(), 2u);
    EXPECT_NE(sel.skipped[0].why.find("1 of 20 choices not measured ok"), std::string::npos) << sel.skipped[0].why;
    EXPECT_NE(sel.skipped[0].why.find("out of shared memory"), std::string::npos) << sel.skipped[0].why;
    EXPECT_NE(sel.skipped[1].why.find("was not measured there"), std::string::npos) << sel.skipped[1].why;
}

// Two devices of one kind: an op only one measured completely comes from that one, never mixed; an
// op both measured completely is their median (CompleteOps.EachDeviceRunsAgreeOneWinnerByTheMedian).
TEST(CompleteOps, OneDevicesTimesPerOp) {
    fs::path file = kiln::test::cache_file_for(kiln::test::h100_root(), kH100Hash);
    auto j = kiln::test::run_json_from_cache_file(file, kH100Hash);
    j["devices"].push_back({{"index", 1}, {"name", kH100Hash}, {"arch", "sm_90"}});
    for (auto& op : j["ops"])
        for (auto& c : op["choices"]) {
            auto second = c["measured"][0];
            second["device"] = 1;
            second["ms"] = 7.0;
            c["measured"].push_back(second);
        }
    j["ops"][0]["choices"][0]["measured"][0]["status"] = "timeout";
    auto sel = complete_ops(run_from_json(j, "test").value(), std::nullopt);
    ASSERT_EQ(sel.ops.size(), 2u);
    EXPECT_EQ(sel.ops[0].device, 1);
    EXPECT_TRUE(sel.ops[0].agreed_from.empty());
    for (const auto& c : sel.ops[0].choices) EXPECT_EQ(c.ms, 7.0);
    EXPECT_EQ(sel.ops[1].agreed_from, (std::vector<int>{0, 1}));
    for (const auto& c : sel.ops[1].choices) {
        ASSERT_EQ(c.device_ms.size(), 2u);
        EXPECT_EQ(c.device_ms[1], 7.0);
        EXPECT_DOUBLE_EQ(c.ms, (c.device_ms[0] + 7.0) / 2);
    }
}

// retune spreads an op's choices over the GPUs: each choice from the device of that kind that
// measured it; a choice no device measured ok leaves the op out.
TEST(CompleteOps, ChoicesSpreadOverDevicesOfOneKind) {
    fs::path file = kiln::test::cache_file_for(kiln::test::h100_root(), kH100Hash);
    auto j = kiln::test::run_json_from_cache_file(file, kH100Hash);
    j["devices"].push_back({{"index", 1}, {"name", kH100Hash}, {"arch", "sm_90"}});
    for (auto& op : j["ops"])
        for (size_t i = 0; i < op["choices"].size(); i += 2) {
            auto& m = op["choices"][i]["measured"][0];
            m["device"] = 1;
            m["ms"] = 5.0;
        }
    j["ops"][1]["choices"][1]["measured"][0]["status"] = "crashed";
    auto sel = complete_ops(run_from_json(j, "test").value(), std::nullopt);
    ASSERT_EQ(sel.ops.size(), 1u);
    EXPECT_EQ(sel.ops[0].device, -1);
    for (size_t i = 0; i < sel.ops[0].choices.size(); ++i) EXPECT_EQ(sel.ops[0].choices[i].ms == 5.0, i % 2 == 0) << i;
    ASSERT_EQ(sel.skipped.size(), 1u);
    EXPECT_NE(sel.skipped[0].why.find("1 of 21 choices measured ok on none of the 2 devices"), std::string::npos)
        << sel.skipped[0].why;
}

// A file torch could not read: refused, left as it is, and no other file written either.
TEST(WriteTimingCache, AFileTorchCannotReadIsRefusedAndNothingIsWritten) {
    for (const std::string& bad :
         {std::string("{\"system\": {}, \"cache\": [1, 2]}"), std::string("{\"cache\": {"), std::string(""),
          std::string("{\"system\": {}}"), std::string("{\"system\": {}, \"cache\": {\"mm\": 3}}")}) {
        kiln::test::ScratchDir d("hb-write-bad");
        fs::path root = copy_root(d, kiln::test::h100_root());
        fs::path h100_file = kiln::test::cache_file_for(root, kH100Hash);
        auto sel = complete_ops(run_for(h100_file, kH100Hash), std::nullopt);
        auto h200 = complete_ops(run_for(h100_file, kH200), std::nullopt);
        const std::string h100_before = read_file(h100_file);
        // The H200's file is the broken one; the H100's would be fine.
        fs::path h200_file = root / "cache" / h200.ops[0].system_hash();
        { std::ofstream(h200_file) << bad; }
        std::vector<MeasuredOp> both = sel.ops;
        both.insert(both.end(), h200.ops.begin(), h200.ops.end());
        auto report = write_timing_cache(kiln::test::open_dir(root), both);
        ASSERT_FALSE(report) << bad;
        EXPECT_EQ(report.error().code, kiln::Errc::parse) << report.error().str();
        EXPECT_NE(report.error().str().find("torch could not read"), std::string::npos) << report.error().str();
        EXPECT_EQ(report.error().context, h200_file.string());
        EXPECT_EQ(read_file(h200_file), bad);
        EXPECT_EQ(read_file(h100_file), h100_before);
    }
}

// A root Kiln cannot write into (its cache/ is a file): an error, the file left as it was.
TEST(WriteTimingCache, AnUnwritableRootIsAnErrorAndLosesNothing) {
    kiln::test::ScratchDir d("hb-write-unwritable");
    fs::path file = kiln::test::cache_file_for(kiln::test::h100_root(), kH100Hash);
    auto sel = complete_ops(run_for(file, kH100Hash), std::nullopt);
    { std::ofstream(d.path() / "cache") << "not a directory"; }
    auto report = write_timing_cache(kiln::test::open_dir(d.path()), sel.ops);
    ASSERT_FALSE(report);
    EXPECT_EQ(read_file(d.path() / "cache"), "not a directory");
    auto missing = write_timing_cache(kiln::test::open_dir(d.path() / "nope"), sel.ops);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, kiln::Errc::not_found);
    EXPECT_FALSE(fs::exists(d.path() / "nope"));
}

// Issue 44: `retune --write` writes beneath the root it opened. The root renamed away after the open
// and a decoy put at its path (a cache/ folder of its own): the opened root's timing cache gets the
// times, under its own lock folder, and nothing is created or changed at the decoy.
TEST(WriteTimingCache, WritesBeneathTheOpenedRootNotItsPath) {
    kiln::test::ScratchDir dir("hb-write-decoy");
    const kiln::test::DecoyedRoot d = kiln::test::open_h100_root_then_decoy(dir);
    ASSERT_TRUE(d.opened.fd.valid());
    const fs::path file = kiln::test::cache_file_for(d.moved, kH100Hash);
    ASSERT_FALSE(file.empty());
    const std::string before = read_file(file), decoy_before = read_file(d.root / "cache" / "decoy");
    RetuneRun run = run_for(file, kH100Hash);
    auto sel = complete_ops(run, std::nullopt);
    ASSERT_EQ(sel.ops.size(), 2u);
    fs::remove_all(d.moved / "locks");  // made again beneath the opened root, not at the decoy
    auto report = write_timing_cache(d.opened, sel.ops);
    ASSERT_TRUE(report) << report.error().str();
    ASSERT_EQ(report->files.size(), 1u);
    EXPECT_EQ(report->files[0].path, (d.root / "cache" / file.filename()).string());  // named as opened
    EXPECT_EQ(report->files[0].replaced, 2);
    EXPECT_FALSE(report->files[0].created);
    EXPECT_NE(read_file(file), before);
    const auto written = kiln::py_loads(read_file(file)).value();
    const auto& slot = written["cache"][run.ops[0].op][run.ops[0].inputs][run.ops[0].precision];
    ASSERT_EQ(slot.size(), run.ops[0].choices.size());
    for (const auto& c : run.ops[0].choices) EXPECT_DOUBLE_EQ(slot[c.name].get<double>(), *c.measured[0].ms);
    EXPECT_TRUE(fs::exists(d.moved / "locks" / ("autotune-" + file.filename().string() + ".lock")));
    EXPECT_FALSE(fs::exists(d.root / "cache" / file.filename()));
    EXPECT_FALSE(fs::exists(d.root / "locks"));
    EXPECT_EQ(read_file(d.root / "cache" / "decoy"), decoy_before);
    // A new GPU kind's file is created beneath the opened root too.
    auto h200 = complete_ops(run_for(file, kH200), std::nullopt);
    auto created = write_timing_cache(d.opened, h200.ops);
    ASSERT_TRUE(created) << created.error().str();
    ASSERT_EQ(created->files.size(), 1u);
    EXPECT_TRUE(created->files[0].created);
    EXPECT_TRUE(fs::is_regular_file(d.moved / "cache" / h200.ops[0].system_hash()));
    EXPECT_FALSE(fs::exists(d.root / "cache" / h200.ops[0].system_hash()));
}

// Two writers at once (different ops into one file): the lock keeps both.
TEST(WriteTimingCache, ConcurrentWritersLoseNothing) {
    kiln::test::ScratchDir d("hb-write-race");
    fs::path root = copy_root(d, kiln::test::h100_root());
    fs::path file = kiln::test::cache_file_for(root, kH100Hash);
    auto sel = complete_ops(run_for(file, kH200), std::nullopt);
    ASSERT_EQ(sel.ops.size(), 2u);
    for (int round = 0; round < 20; ++round) {
        fs::remove(root / "cache" / sel.ops[0].system_hash());
        std::vector<MeasuredOp> a{sel.ops[0]}, b{sel.ops[1]};
        std::thread t([&] { EXPECT_TRUE(write_timing_cache(kiln::test::open_dir(root), a)); });
        ASSERT_TRUE(write_timing_cache(kiln::test::open_dir(root), b));
        t.join();
        auto j = kiln::py_loads(read_file(root / "cache" / sel.ops[0].system_hash())).value();
        EXPECT_EQ(j["cache"]["mm"].size(), 2u) << "round " << round;
    }
}

// issue 42 #5: the lock is never taken through a symlink. A dangling locks/autotune-<hash>.lock link,
// or locks/ a link to a folder elsewhere, made --write create a file where the link pointed.
TEST(WriteTimingCache, ASymlinkedLockOrLockFolderIsRefusedAndNothingIsCreatedThere) {
    kiln::test::ScratchDir d("hb-write-lock-link");
    fs::path root = copy_root(d, kiln::test::h100_root());
    fs::path file = kiln::test::cache_file_for(root, kH100Hash);
    const std::string before = read_file(file);
    auto sel = complete_ops(run_for(file, kH100Hash), std::nullopt);
    ASSERT_FALSE(sel.ops.empty());
    const fs::path outside = d.path() / "outside";
    fs::create_directories(outside);
    fs::create_directories(root / "locks");
    const fs::path lock = root / "locks" / ("autotune-" + sel.ops[0].system_hash() + ".lock");
    fs::create_symlink(outside / "pwn", lock);
    auto report = write_timing_cache(kiln::test::open_dir(root), sel.ops);
    ASSERT_FALSE(report);
    EXPECT_EQ(report.error().code, kiln::Errc::invalid_argument) << report.error().str();
    EXPECT_NE(report.error().str().find("symbolic link"), std::string::npos) << report.error().str();
    EXPECT_FALSE(fs::exists(outside / "pwn"));
    EXPECT_EQ(read_file(file), before);

    fs::remove_all(root / "locks");
    fs::create_directory_symlink(outside, root / "locks");
    report = write_timing_cache(kiln::test::open_dir(root), sel.ops);
    ASSERT_FALSE(report);
    EXPECT_NE(report.error().str().find("symbolic link"), std::string::npos) << report.error().str();
    EXPECT_TRUE(fs::is_empty(outside));
    EXPECT_EQ(read_file(file), before);
}

// Issue 40: a choice whose kernel cannot launch on the GPU fails as torch fails it; torch writes it
// as Infinity and so does the hand-back, so the op is complete and torch benchmarks nothing. A
// transient failure (timeout, crash) still leaves the op to torch.
TEST(CompleteOps, AChoiceThatFailsAsTorchFailsItIsWrittenAsInfinity) {
    kiln::test::ScratchDir d("hb-infinity");
    fs::path root = copy_root(d, kiln::test::h100_root());
    fs::path file = kiln::test::cache_file_for(root, kH100Hash);
    auto j = kiln::test::run_json_from_cache_file(file, kH100Hash);
    auto& m = j["ops"][0]["choices"][3]["measured"][0];
    m["status"] = "failed";
    m["ms"] = nullptr;
    m["why"] = "the kernel needs 262144 bytes of shared memory; this GPU allows 232448";
    m["torch_inf"] = true;
    auto& t = j["ops"][1]["choices"][2]["measured"][0];
    t["status"] = "timeout";
    t["ms"] = nullptr;
    const std::string name = j["ops"][0]["choices"][3]["name"];
    auto sel = complete_ops(run_from_json(j, "test").value(), std::nullopt);
    ASSERT_EQ(sel.ops.size(), 1u);
    ASSERT_EQ(sel.skipped.size(), 1u);
    EXPECT_NE(sel.skipped[0].why.find("timeout"), std::string::npos) << sel.skipped[0].why;
    EXPECT_EQ(sel.ops[0].infinite_choices(), 1);
    ASSERT_NE(sel.ops[0].winner(), nullptr);
    EXPECT_NE(sel.ops[0].winner()->name, name);
    auto w = write_timing_cache(kiln::test::open_dir(root), sel.ops);
    ASSERT_TRUE(w) << w.error().str();
    // Read back as torch reads it: Infinity, exactly, for that choice alone.
    auto written = kiln::py_loads(read_file(file)).value();
    const auto& slot = written["cache"][sel.ops[0].op][sel.ops[0].inputs][sel.ops[0].precision];
    EXPECT_TRUE(std::isinf(slot[name].get<double>()));
    int finite = 0;
    for (auto it = slot.begin(); it != slot.end(); ++it) finite += std::isfinite(it.value().get<double>());
    EXPECT_EQ(finite, static_cast<int>(slot.size()) - 1);
    EXPECT_NE(read_file(file).find("Infinity"), std::string::npos);
}

// Without the reason an infinite time is still refused (issue 42 #8 stands).
TEST(WriteTimingCache, InfinityWithoutAReasonIsRefused) {
    kiln::test::ScratchDir d("hb-inf-refused");
    fs::path root = copy_root(d, kiln::test::h100_root());
    fs::path file = kiln::test::cache_file_for(root, kH100Hash);
    auto sel = complete_ops(run_for(file, kH100Hash), std::nullopt);
    ASSERT_FALSE(sel.ops.empty());
    const std::string before = read_file(file);
    sel.ops[0].choices[0].ms = std::numeric_limits<double>::infinity();
    EXPECT_FALSE(write_timing_cache(kiln::test::open_dir(root), sel.ops));
    EXPECT_EQ(read_file(file), before);
}

// torch recorded a choice as inf on this GPU kind and Kiln has nothing to run for it: torch would fail
// it again there, so it stays Infinity; on another GPU kind the op is left to torch.
TEST(CompleteOps, ARecordedFailureKilnCannotRunStaysInfinityOnItsOwnKindOnly) {
    fs::path file = kiln::test::cache_file_for(kiln::test::h100_root(), kH100Hash);
    for (const std::string& device : {kH100Hash, kH200}) {
        auto j = kiln::test::run_json_from_cache_file(file, device);
        auto& c = j["ops"][0]["choices"][5];
        c["recorded_ms"] = nullptr;
        c["runnable"] = false;
        c["why"] = "no compiled kernel in the Triton cache names this module";
        c["measured"] = nlohmann::ordered_json::array();
        auto sel = complete_ops(run_from_json(j, "test").value(), std::nullopt);
        if (device == kH100Hash) {
            ASSERT_EQ(sel.ops.size(), 2u) << device;
            EXPECT_EQ(sel.ops[0].infinite_choices(), 1);
            EXPECT_NE(sel.ops[0].choices[5].infinite_why.find("torch recorded it as inf"), std::string::npos);
        } else {
            EXPECT_EQ(sel.ops.size(), 1u) << device;
            ASSERT_EQ(sel.skipped.size(), 1u);
        }
    }
}
