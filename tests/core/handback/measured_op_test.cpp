// The contract reader, the version source, and --shard's slices.
#include <gtest/gtest.h>

#include <set>

#include "handback/handback_report.hpp"
#include "handback/measured_op.hpp"
#include "opened_dir.hpp"
#include "retune_run_fixture.hpp"
#include "test_support.hpp"

using namespace kiln::handback;

TEST(RetuneRun, ReadsTheContractAndRoundTrips) {
    auto file = kiln::test::cache_file_for(kiln::test::h100_root(), "NVIDIA H100 80GB HBM3");
    auto j = kiln::test::run_json_from_cache_file(file, "NVIDIA H100 80GB HBM3");
    auto run = run_from_json(j, "test");
    ASSERT_TRUE(run) << run.error().str();
    ASSERT_EQ(run->ops.size(), 2u);
    EXPECT_EQ(run->ops[0].choices.size(), 20u);
    EXPECT_EQ(run->ops[1].choices.size(), 21u);
    EXPECT_EQ(run->ops[0].recorded_for.system_hash, file.filename().string());
    EXPECT_EQ(kiln::py_dumps(to_json(*run_from_json(to_json(*run), "again"))), kiln::py_dumps(to_json(*run)));
}

// Issue 42 #7: a wrong-typed field costs its choice (or op) only, with a message naming it; the rest
// of the run is read and handed back. Only text that is no run at all is an error.
TEST(RetuneRun, BadInputSaysWhere) {
    auto j = kiln::test::run_json_from_cache_file(
        kiln::test::cache_file_for(kiln::test::h100_root(), "NVIDIA H100 80GB HBM3"), "X");
    j["ops"][1]["choices"][4]["measured"][0]["ms"] = "fast";
    auto run = run_from_json(j, "saved.json");
    ASSERT_TRUE(run) << run.error().str();
    ASSERT_EQ(run->ops.size(), 2u);
    EXPECT_TRUE(run->ops[0].choices[4].unreadable.empty());
    EXPECT_EQ(run->ops[1].choices[4].unreadable,
              R"(ops[1].choices[4].measured[0].ms is "fast" (a string), not a time in ms)");
    EXPECT_FALSE(run_from_json(nlohmann::ordered_json::array(), "x"));
    EXPECT_FALSE(run_from_json({{"devices", nlohmann::ordered_json::array()}}, "x"));
}

TEST(RetuneRun, EachWrongTypedFieldCostsItsItemOnly) {
    const std::string h100 = "NVIDIA H100 80GB HBM3";
    auto j = kiln::test::run_json_from_cache_file(kiln::test::cache_file_for(kiln::test::h100_root(), h100), h100);
    auto two = j["ops"][1];
    // Four copies of the second op, each with one poisoned field; the first op stays whole.
    auto poisoned = [&](auto edit) {
        auto op = two;
        edit(op);
        j["ops"].push_back(op);
    };
    poisoned([](auto& op) { op["choices"][3]["runnable"] = "yes"; });
    poisoned([](auto& op) { op["choices"][0]["name"] = 123; });
    poisoned([](auto& op) { op["choices"][2]["measured"][0]["device"] = nlohmann::ordered_json::parse("1e22"); });
    poisoned([](auto& op) { op["precision"] = 7; });
    j["devices"].push_back({{"index", "1"}, {"name", "B"}});
    auto run = run_from_json(j, "saved.json");
    ASSERT_TRUE(run) << run.error().str();
    ASSERT_EQ(run->devices.size(), 1u);
    ASSERT_EQ(run->problems.size(), 1u);
    EXPECT_EQ(run->problems[0], R"(devices[1].index is "1" (a string), not an integer)");
    ASSERT_EQ(run->ops.size(), 6u);
    EXPECT_EQ(run->ops[2].choices[3].unreadable,
              R"(ops[2].choices[3].runnable is "yes" (a string), not true or false)");
    EXPECT_EQ(run->ops[3].choices[0].unreadable, "ops[3].choices[0].name is 123, not a string");
    EXPECT_EQ(run->ops[4].choices[2].unreadable, "ops[4].choices[2].measured[0].device is 1e+22, not an integer");
    EXPECT_EQ(run->ops[5].unreadable, "ops[5].precision is 7, not a string");

    auto sel = complete_ops(*run, std::nullopt);
    ASSERT_EQ(sel.ops.size(), 2u);  // the two whole ops
    ASSERT_EQ(sel.skipped.size(), 4u);
    EXPECT_NE(sel.skipped[0].why.find("ops[2].choices[3].runnable is \"yes\""), std::string::npos)
        << sel.skipped[0].why;
    EXPECT_NE(sel.skipped[1].why.find("ops[3].choices[0].name is 123"), std::string::npos) << sel.skipped[1].why;
    EXPECT_NE(sel.skipped[2].why.find("measured[0].device is 1e+22"), std::string::npos) << sel.skipped[2].why;
    EXPECT_EQ(sel.skipped[3].why, "ops[5].precision is 7, not a string");
    EXPECT_EQ(sel.skipped[3].label.rfind("mm [('cuda'", 0), 0u) << sel.skipped[3].label;
}

// Issue 42 #8: a measurement "ok" at -1000 ms or NaN is no time; its op is not handed back.
TEST(RetuneRun, NegativeOrNaNTimesAreNoMeasurement) {
    const std::string h100 = "NVIDIA H100 80GB HBM3";
    auto j = kiln::test::run_json_from_cache_file(kiln::test::cache_file_for(kiln::test::h100_root(), h100), h100);
    j["ops"][0]["choices"][1]["measured"][0]["ms"] = -1000;
    j["ops"][1]["choices"][0]["measured"][0]["ms"] = 123456.75;  // NaN below, as Python's json writes it
    auto text = kiln::py_dumps(j);
    auto at = text.find("123456.75");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 9, "NaN");
    auto parsed = kiln::py_loads(text, "saved.json");
    ASSERT_TRUE(parsed) << parsed.error().str();
    auto run = run_from_json(*parsed, "saved.json");
    ASSERT_TRUE(run) << run.error().str();
    EXPECT_EQ(run->ops[0].choices[1].unreadable,
              "ops[0].choices[1].measured[0].ms is -1000 ms: a time is never negative");
    EXPECT_EQ(run->ops[1].choices[0].unreadable, "ops[1].choices[0].measured[0].ms is NaN, not a time");
    auto sel = complete_ops(*run, std::nullopt);
    EXPECT_TRUE(sel.ops.empty());
    EXPECT_EQ(sel.skipped.size(), 2u);
}

// Without --python and without a Triton key in the recorded file there is no system to write for.
TEST(CompleteOps, NoTritonKeyNoSystem) {
    auto j = kiln::test::run_json_from_cache_file(
        kiln::test::cache_file_for(kiln::test::h100_root(), "NVIDIA H100 80GB HBM3"), "NVIDIA H100 80GB HBM3");
    for (auto& op : j["ops"]) op["recorded_for"]["triton"] = nullptr;
    auto run = run_from_json(j, "t").value();
    auto sel = complete_ops(run, std::nullopt);
    EXPECT_TRUE(sel.ops.empty());
    ASSERT_EQ(sel.skipped.size(), 2u);
    EXPECT_NE(sel.skipped[0].why.find("--python"), std::string::npos);
    auto with_python = complete_ops(run, SoftwareVersions{"abc", "13.0", "python3 (torch 2.11)"});
    ASSERT_EQ(with_python.ops.size(), 2u);
    EXPECT_EQ(with_python.ops[0].system()["version"]["triton"], "abc");
    EXPECT_EQ(with_python.ops[0].versions.from, "python3 (torch 2.11)");
}

// A report saved with an abbreviated Triton key: the recorded file's own key, read from the root;
// without the root the op is skipped (the file name torch looks for would be wrong).
TEST(CompleteOps, AnAbbreviatedRecordedKeyIsTakenFromTheFile) {
    auto file = kiln::test::cache_file_for(kiln::test::h100_root(), "NVIDIA H100 80GB HBM3");
    auto j = kiln::test::run_json_from_cache_file(file, "NVIDIA H100 80GB HBM3");
    for (auto& op : j["ops"]) op["recorded_for"]["triton"] = "3.6.00355c3e3452";
    auto run = run_from_json(j, "t").value();
    auto without = complete_ops(run, std::nullopt);
    EXPECT_TRUE(without.ops.empty());
    ASSERT_EQ(without.skipped.size(), 2u);
    EXPECT_NE(without.skipped[0].why.find("abbreviated"), std::string::npos) << without.skipped[0].why;
    fill_recorded_versions(run, kiln::test::open_dir(kiln::test::h100_root()));
    auto with = complete_ops(run, std::nullopt);
    ASSERT_EQ(with.ops.size(), 2u);
    EXPECT_EQ(with.ops[0].system_hash(), file.filename().string());
}

TEST(PythonVersions, APythonWithoutTorchIsAClearError) {
    kiln::test::ScratchDir d("hb-python");
    std::string path = kiln::test::path_without_torch(d.path());
    auto v = python_versions((d.path() / "python3").string());
    ASSERT_FALSE(v);
    EXPECT_EQ(v.error().code, kiln::Errc::unavailable);
    EXPECT_NE(v.error().hint.find("--python"), std::string::npos) << v.error().str();
}

TEST(Shard, ParsesAndRefuses) {
    auto s = parse_shard("1/3");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->index, 1);
    EXPECT_EQ(s->count, 3);
    for (const char* bad : {"3/3", "-1/2", "1/0", "x", "1/", "/2", "1/2/3", "1 /2"})
        EXPECT_FALSE(parse_shard(bad)) << bad;
}

// Every op in exactly one slice, whatever N; the slice of an op is a fixed function of its keys
// (the same on every host: a fleet needs no coordinator).
TEST(Shard, SlicesPartitionTheOpsStably) {
    auto j = kiln::test::run_json_from_cache_file(
        kiln::test::cache_file_for(kiln::test::h100_root(), "NVIDIA H100 80GB HBM3"), "X");
    auto base = j["ops"];
    for (int i = 0; i < 30; ++i) {  // more ops: the same shapes at other precisions
        auto op = base[static_cast<size_t>(i % 2)];
        op["precision"] = "p" + std::to_string(i);
        j["ops"].push_back(op);
    }
    auto run = run_from_json(j, "t").value();
    for (int n : {1, 2, 3, 7}) {
        std::multiset<std::string> seen;
        for (int i = 0; i < n; ++i)
            for (const auto& op : shard_run(run, {i, n}).ops) seen.insert(op.op + op.inputs + op.precision);
        EXPECT_EQ(seen.size(), run.ops.size()) << n;
        std::set<std::string> unique(seen.begin(), seen.end());
        EXPECT_EQ(unique.size(), run.ops.size()) << n;
    }
    // sha256("mm\n<inputs>\nhighest")[:15] = 3c9898a63f9bdca (Python's hashlib): 0 mod 2, 4 mod 7.
    EXPECT_EQ(shard_of("mm", run.ops[0].inputs, "highest", 2), 0);
    EXPECT_EQ(shard_of("mm", run.ops[0].inputs, "highest", 7), 4);
}

// `retune --each-device`: two devices of one kind each measured every choice of an op and their own
// winners differ; the hand-back agrees one winner by the median of their times (what every GPU then
// runs). A device that measured the op only in part does not vote; an op only one device measured
// completely keeps that device's times.
TEST(CompleteOps, EachDeviceRunsAgreeOneWinnerByTheMedian) {
    using Json = nlohmann::ordered_json;
    const std::string kind = "NVIDIA H100 80GB HBM3";
    auto j = kiln::test::run_json_from_cache_file(kiln::test::cache_file_for(kiln::test::h100_root(), kind), kind);
    j["devices"].push_back({{"index", 1}, {"name", kind}, {"arch", "sm_90"}});
    j["devices"].push_back({{"index", 2}, {"name", kind}, {"arch", "sm_90"}});
    ASSERT_GE(j["ops"].size(), 2u);
    auto& first = j["ops"][0]["choices"];
    ASSERT_GE(first.size(), 3u);
    auto measure = [](Json& choice, int device, double ms, const char* status = "ok") {
        choice["measured"].push_back(
            {{"device", device}, {"status", status}, {"ms", ms}, {"spread_ms", ms / 100}, {"why", ""}});
    };
    // Op 0: device 0 prefers A (1.0 < 1.1), device 1 prefers B (1.05 < 1.3): medians A 1.15, B 1.075.
    for (size_t i = 0; i < first.size(); ++i) {
        double d0 = i == 0 ? 1.0 : i == 1 ? 1.1 : 5.0, d1 = i == 0 ? 1.3 : i == 1 ? 1.05 : 5.0 + i;
        first[i]["measured"] = Json::array();
        measure(first[i], 0, d0);
        measure(first[i], 1, d1);
        if (i == 0) measure(first[i], 2, 0.01);  // device 2 measured A alone: no vote
    }
    // Op 1: device 1 timed out on one choice: device 0's times alone.
    auto& second = j["ops"][1]["choices"];
    for (size_t i = 0; i < second.size(); ++i) measure(second[i], 1, 0.5, i == 0 ? "timeout" : "ok");
    auto run = run_from_json(j, "t").value();
    auto sel = complete_ops(run, std::nullopt);
    ASSERT_EQ(sel.ops.size(), 2u) << (sel.skipped.empty() ? "" : sel.skipped[0].why);
    const MeasuredOp& agreed = sel.ops[0];
    EXPECT_EQ(agreed.agreed_from, (std::vector<int>{0, 1}));
    EXPECT_EQ(agreed.device, -1);
    ASSERT_NE(agreed.winner(), nullptr);
    EXPECT_EQ(agreed.winner()->name, first[1]["name"].get<std::string>());
    EXPECT_DOUBLE_EQ(agreed.winner()->ms, 1.075);
    EXPECT_DOUBLE_EQ(agreed.choices[0].ms, 1.15);
    EXPECT_EQ(agreed.device_winner(0)->name, first[0]["name"].get<std::string>());
    EXPECT_EQ(agreed.device_winner(1)->name, first[1]["name"].get<std::string>());
    EXPECT_TRUE(agreed.devices_differed());
    const MeasuredOp& alone = sel.ops[1];
    EXPECT_TRUE(alone.agreed_from.empty());
    EXPECT_EQ(alone.device, 0);
    // The report names the agreed op, its rule, and each device's own winner.
    HandbackReport report;
    report.decided = true;
    report.ops = sel.ops;
    Json out = to_json(report);
    ASSERT_TRUE(out.contains("agreed_across_devices"));
    ASSERT_EQ(out["agreed_across_devices"]["ops"].size(), 1u);
    const Json& o = out["agreed_across_devices"]["ops"][0];
    EXPECT_EQ(o["agreed"], first[1]["name"]);
    EXPECT_EQ(o["devices"][0]["winner"], first[0]["name"]);
    EXPECT_EQ(o["devices"][0]["agreed_ms"], 1.1);
    EXPECT_TRUE(o["devices_differed"].get<bool>());
}

// With `--device I` the run is that device's alone, as before: no agreement.
TEST(CompleteOps, OneDeviceOfAnEachDeviceRunIsItsOwnTimes) {
    const std::string kind = "NVIDIA H100 80GB HBM3";
    auto j = kiln::test::run_json_from_cache_file(kiln::test::cache_file_for(kiln::test::h100_root(), kind), kind);
    j["devices"].push_back({{"index", 1}, {"name", kind}, {"arch", "sm_90"}});
    for (auto& op : j["ops"])
        for (auto& c : op["choices"]) {
            auto m = c["measured"][0];
            m["device"] = 1;
            m["ms"] = m["ms"].get<double>() * 3;
            c["measured"].push_back(m);
        }
    auto run = run_from_json(j, "t").value();
    auto sel = complete_ops(run, std::nullopt, 1);
    ASSERT_FALSE(sel.ops.empty());
    EXPECT_TRUE(sel.ops[0].agreed_from.empty());
    EXPECT_EQ(sel.ops[0].device, 1);
    auto both = complete_ops(run, std::nullopt);
    ASSERT_EQ(both.ops.size(), sel.ops.size());
    EXPECT_EQ(both.ops[0].agreed_from.size(), 2u);
    EXPECT_DOUBLE_EQ(both.ops[0].choices[0].ms, 2 * both.ops[0].choices[0].device_ms[0]);
}

// A device on which the agreed choice ties its own fastest agrees with it.
TEST(CompleteOps, ATieOnADeviceIsNoDisagreement) {
    using Json = nlohmann::ordered_json;
    const std::string kind = "NVIDIA H100 80GB HBM3";
    auto j = kiln::test::run_json_from_cache_file(kiln::test::cache_file_for(kiln::test::h100_root(), kind), kind);
    j["devices"].push_back({{"index", 1}, {"name", kind}, {"arch", "sm_90"}});
    auto& choices = j["ops"][0]["choices"];
    ASSERT_GE(choices.size(), 2u);
    for (size_t i = 0; i < choices.size(); ++i) {
        // choice 0: 1.0 and 2.0 (median 1.5); choice 1: 1.0 and 1.0 (1.0); the rest slower.
        double d0 = i < 2 ? 1.0 : 9.0, d1 = i == 0 ? 2.0 : i == 1 ? 1.0 : 9.0;
        choices[i]["measured"] = Json::array({{{"device", 0}, {"status", "ok"}, {"ms", d0}, {"why", ""}},
                                              {{"device", 1}, {"status", "ok"}, {"ms", d1}, {"why", ""}}});
    }
    auto sel = complete_ops(run_from_json(j, "t").value(), std::nullopt);
    ASSERT_FALSE(sel.ops.empty());
    const MeasuredOp& op = sel.ops[0];
    ASSERT_EQ(op.agreed_from.size(), 2u);
    EXPECT_EQ(op.winner()->name, choices[1]["name"].get<std::string>());
    EXPECT_EQ(op.device_winner(0)->name, choices[0]["name"].get<std::string>());  // first of the tie
    EXPECT_FALSE(op.devices_differed());
    choices[1]["measured"][0]["ms"] = 1.01;  // now device 0's own is strictly faster
    auto again = complete_ops(run_from_json(j, "t").value(), std::nullopt);
    EXPECT_TRUE(again.ops[0].devices_differed());
}

// GPUs of two kinds each measured every choice: never agreed as equals; each kind keeps its own times.
TEST(CompleteOps, EachDeviceRunsOfTwoGpuKindsAreNotAgreedAcross) {
    const std::string kind = "NVIDIA H100 80GB HBM3";
    auto j = kiln::test::run_json_from_cache_file(kiln::test::cache_file_for(kiln::test::h100_root(), kind), kind);
    j["devices"].push_back({{"index", 1}, {"name", "NVIDIA H200"}, {"arch", "sm_90"}});
    for (auto& op : j["ops"])
        for (auto& c : op["choices"]) {
            auto m = c["measured"][0];
            m["device"] = 1;
            m["ms"] = m["ms"].get<double>() / 2;
            c["measured"].push_back(m);
        }
    auto run = run_from_json(j, "t").value();
    auto sel = complete_ops(run, SoftwareVersions{"abc", "13.0", "python3"});
    ASSERT_EQ(sel.ops.size(), 2 * run.ops.size());
    for (const auto& op : sel.ops) {
        EXPECT_TRUE(op.agreed_from.empty()) << op.device_name;
        EXPECT_EQ(op.device, op.device_name == kind ? 0 : 1);
    }
    EXPECT_NE(sel.ops[0].system_hash(), sel.ops[1].system_hash());  // one timing cache per GPU kind
}
