// Directory scans, explicit files, broken files and the JSON schema of `kiln-cli timings`.
#include <gtest/gtest.h>

#include <fstream>

#include "test_support.hpp"
#include "timings/collect.hpp"
#include "timings/session_log_source.hpp"
#include "timings/timing_cache_source.hpp"

namespace fs = std::filesystem;
using namespace kiln::timings;

namespace {
int count_kind(const TimingSet& set, SourceKind k) {
    int n = 0;
    for (const auto& s : set.sources) n += s.kind == k;
    return n;
}
void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}
const std::string kHash(64, 'a');
}  // namespace

TEST(Collect, CacheRootFindsEveryTimingFile) {
    auto set = collect_timings({kiln::test::h100_root()});
    ASSERT_TRUE(set.ok()) << set.error().str();
    EXPECT_EQ(count_kind(*set, SourceKind::timing_cache), 1);
    EXPECT_EQ(count_kind(*set, SourceKind::best_config), 5);  // fixture README: best_config 5
    EXPECT_EQ(count_kind(*set, SourceKind::kernel_perf), 3);  // kernel_perf 3
    EXPECT_TRUE(set->warnings.empty()) << set->warnings.front();
    EXPECT_EQ(set->ops.size(), 2u + 5u + 3u);
    // Per-kernel files carry no device; the cache's device is the only one named.
    for (const auto& op : set->ops) {
        EXPECT_EQ(op.device, op.op == "mm" ? "NVIDIA H100 80GB HBM3" : "") << op.op;
    }
}

TEST(Collect, FolderAboveRootAlsoFindsLogs) {
    auto set = collect_timings({kiln::test::fixture_dir() / "h100"});
    ASSERT_TRUE(set.ok()) << set.error().str();
    EXPECT_EQ(count_kind(*set, SourceKind::mm_log), 1);
    EXPECT_EQ(count_kind(*set, SourceKind::stderr_log), 1);  // only stderr_cold.log has AUTOTUNE tables
    EXPECT_EQ(count_kind(*set, SourceKind::timing_cache), 1);
}

TEST(Collect, ExplicitFileErrorsButScanWarns) {
    kiln::test::ScratchDir dir("timings-torn");
    // A torn write: Inductor rewrites the file without a lock.
    write(dir.path() / "cache" / kHash, "{\"system\": {\"device\": {\"name\": \"X\"}}, \"cache\": {\"mm\": {");
    auto direct = collect_timings({dir.path() / "cache" / kHash});
    ASSERT_FALSE(direct.ok());
    EXPECT_EQ(direct.error().code, kiln::Errc::parse);
    EXPECT_NE(direct.error().str().find(kHash), std::string::npos) << direct.error().str();
    auto scan = collect_timings({dir.path()});
    ASSERT_TRUE(scan.ok());
    EXPECT_EQ(scan->warnings.size(), 1u);
    EXPECT_TRUE(scan->ops.empty());

    auto missing = collect_timings({dir.path() / "nope"});
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, kiln::Errc::not_found);
    write(dir.path() / "notes.txt", "nothing here");
    EXPECT_EQ(collect_timings({dir.path() / "notes.txt"}).error().code, kiln::Errc::unsupported);
}

TEST(Collect, InfinityMarksAFailedChoice) {
    std::string text = R"({"system": {"device": {"name": "Dev"}, "hash": "h"}, "cache": {"base mm time: x": 0.5,
      "addmm": {"[('cuda', 'torch.float32', 8, 8, 8, 1, 0)]": {"high": {"a-c1": Infinity, "b-c2": 0.25, "c-c3": NaN}}}}})";
    auto f = parse_timing_cache(text, "mem", {});
    ASSERT_TRUE(f.ok()) << f.error().str();
    ASSERT_EQ(f->ops.size(), 1u);
    const Op& op = f->ops[0];
    EXPECT_EQ(op.op, "addmm");
    EXPECT_EQ(op.best, "b-c2");
    EXPECT_FALSE(op.choices[0].ms.has_value());
    EXPECT_EQ(op.choices[0].error, "failed to benchmark (time inf)");
    EXPECT_EQ(op.choices[2].error, "failed to benchmark (time NaN)");
    TimingSet set;
    set.ops.push_back(op);
    auto j = to_json(set);
    EXPECT_TRUE(j["ops"][0]["choices"][0]["ms"].is_null());
}

TEST(Collect, JsonSchemaIsExactlyTheDocumentedOne) {
    auto set = collect_timings({kiln::test::h100_root() / "cache"});
    ASSERT_TRUE(set.ok());
    auto j = to_json(*set);
    std::vector<std::string> top, op_keys, choice_keys;
    for (auto& [k, v] : j.items()) top.push_back(k);
    for (auto& [k, v] : j["ops"][0].items()) op_keys.push_back(k);
    for (auto& [k, v] : j["ops"][0]["choices"][0].items()) choice_keys.push_back(k);
    EXPECT_EQ(top, (std::vector<std::string>{"sources", "ops"}));
    EXPECT_EQ(op_keys, (std::vector<std::string>{"op", "inputs", "strides", "precision", "device", "choices", "best",
                                                 "sources"}));
    EXPECT_EQ(choice_keys, (std::vector<std::string>{"choice", "ms", "params", "percent_of_best", "aliases", "sources",
                                                     "used_by", "used_by_graphs"}));
    EXPECT_TRUE(j["ops"][0]["choices"][1]["params"].is_object());
}

TEST(SessionTimings, GroupsChoicesPerDeviceAndKeepsFailureReasons) {
    // The events core/tuning's selector writes (session_start, worker_started, measurement, ...).
    std::string text =
        "{\"time\": \"t\", \"event\": \"session_start\", \"op\": \"kiln_add\", "
        "\"inputs_key\": \"[('cpu', 'torch.float32', 1024, 1, 0)]\", \"precision\": \"highest\", \"devices\": \"cpu\", "
        "\"choices\": 4}\n"
        "{\"event\": \"worker_started\", \"device\": \"cpu\", \"pid\": 1}\n"
        "{\"event\": \"measurement\", \"device\": \"cpu\", \"choice\": \"kiln_add-c1\", \"params\": {\"BLOCK\": 64}, "
        "\"ms\": 0.5, \"status\": \"ok\", \"reason\": \"\"}\n"
        "{\"event\": \"measurement\", \"device\": \"cpu\", \"choice\": \"kiln_add-c2\", \"params\": {\"BLOCK\": 128}, "
        "\"ms\": 0.25, \"status\": \"ok\"}\n"
        "{\"event\": \"measurement\", \"device\": \"cpu\", \"choice\": \"kiln_add-c3\", \"ms\": null, \"status\": "
        "\"mismatch\", \"reason\": \"max abs diff 3\"}\n"
        "{\"event\": \"measurement\", \"device\": \"cpu\", \"choice\": \"kiln_add-c4\", \"ms\": 0.1, \"status\": "
        "\"timeout\", \"reason\": \"over 5 s\"}\n"
        "{\"event\": \"measurement\", \"device\": \"cp";  // a live log's torn last line
    auto log = parse_session_log(text, "mem");
    EXPECT_EQ(log.device, "cpu");
    EXPECT_EQ(log.planned_choices, 4);
    EXPECT_EQ(log.measured, 4);
    EXPECT_FALSE(log.ended);
    ASSERT_EQ(log.ops.size(), 1u);
    const Op& op = log.ops[0];
    EXPECT_EQ(op.op, "kiln_add");
    EXPECT_EQ(op.inputs, "1024 float32");
    EXPECT_EQ(op.device, "cpu");
    EXPECT_EQ(op.best, "kiln_add-c2");
    EXPECT_EQ(op.choices[0].params["BLOCK"], 64);
    EXPECT_EQ(op.choices[2].error, "mismatch: max abs diff 3");
    EXPECT_FALSE(op.choices[3].ms.has_value());  // a timed-out choice's time is not a result
    EXPECT_EQ(op.choices[3].error, "timeout: over 5 s");
    EXPECT_EQ(log.skipped_lines, 2);
    EXPECT_TRUE(looks_like_session_log(text));
}
