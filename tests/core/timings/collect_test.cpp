// Directory scans, explicit files, broken files and the JSON schema of `kiln-cli timings`.
#include <gtest/gtest.h>

#include <fstream>

#include "test_support.hpp"
#include "timings/collect.hpp"
#include "timings/session_log_source.hpp"
#include "timings/stderr_autotune.hpp"
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

// Issue 42: a negative time or a string is no time that could win; it is that choice's error. A
// system block of wrong types is this file's error, not an exception out of the whole run.
TEST(Collect, NegativeOrWrongTypedTimesAreChoiceErrors) {
    std::string text = R"({"system": {"device": {"name": "Dev"}, "hash": "h"}, "cache": {
      "mm": {"[('cuda', 'torch.float32', 8, 8, 8, 1, 0)]": {"high": {"a-c1": -1000, "b-c2": 0.25, "c-c3": "0.1"}}}}})";
    auto f = parse_timing_cache(text, "mem", {});
    ASSERT_TRUE(f.ok()) << f.error().str();
    ASSERT_EQ(f->ops.size(), 1u);
    const Op& op = f->ops[0];
    EXPECT_EQ(op.best, "b-c2");
    EXPECT_FALSE(op.choices[0].ms.has_value());
    EXPECT_EQ(op.choices[0].error, "not a time: time is -1000 ms: a time is never negative");
    EXPECT_EQ(op.choices[2].error, R"(not a time: time is "0.1" (a string), not a time in ms)");

    for (const char* system : {R"({"device": {"name": 5}, "hash": "h"})", R"({"device": {"name": "D"}, "hash": 7})"}) {
        auto bad = parse_timing_cache(std::string(R"({"system": )") + system + R"(, "cache": {}})", "mem", {});
        ASSERT_FALSE(bad.ok()) << system;
        EXPECT_EQ(bad.error().code, kiln::Errc::parse);
        EXPECT_NE(bad.error().message.find("system."), std::string::npos) << bad.error().str();
    }
}

// The stats line's unrounded best time replaces the table's only when it is a time: -1000 or NaN
// there would make a choice win that the table shows otherwise (issue 42).
TEST(Collect, AStderrStatsTimeThatIsNoTimeKeepsTheTables) {
    for (const char* bad : {"-1000", "NaN", "\"0.001\""}) {
        std::string text = std::string("Autotune Choices Stats:\n") +
                           R"({"num_choices": 2, "best_kernel": "triton_mm_4", "best_time": )" + bad + "}\n" +
                           "AUTOTUNE mm(512x512, 512x512)\n"
                           "strides: [512, 1], [512, 1]\n"
                           "dtypes: torch.float16, torch.float16\n"
                           "  triton_mm_4 0.0058 ms 100.0% BLOCK_K=128, BLOCK_M=64, num_warps=4\n"
                           "  mm 0.0061 ms 94.3% \n"
                           "SingleProcess AUTOTUNE benchmarking takes 0.2615 seconds\n";
        auto ops = parse_stderr_autotune(text, "mem");
        ASSERT_EQ(ops.size(), 1u) << bad;
        ASSERT_EQ(ops[0].choices.size(), 2u) << bad;
        EXPECT_EQ(ops[0].choices[0].ms, 0.0058) << bad;
        EXPECT_EQ(ops[0].best, ops[0].choices[0].name) << bad;
    }
}

// Issue 42 #15: a timing cache of many inputs keys under one op reads whole, each key its own op
// (nlohmann's ordered parse and join_sources' search among the ops of one name were quadratic in
// them; bench/big_timing_cache measures the time).
TEST(Collect, ATimingCacheOfManyInputsKeysReadsWhole) {
    kiln::test::ScratchDir dir("timings-many-keys");
    const int n = 10000;
    std::string text = R"({"system": {"device": {"name": "Dev"}, "hash": "h"}, "cache": {"mm": {)";
    for (int i = 0; i < n; ++i)
        text += (i ? ", " : "") + std::string("\"[('cuda', 'torch.float16', ") + std::to_string(i + 1) +
                R"(, 64, 64, 1, 0), ('cuda', 'torch.float16', 64, 64, 64, 1, 0)]": {"highest": {"mm-c1": )" +
                std::to_string(i + 1) + ".5, \"triton_mm-c2\": Infinity}}";
    text += "}}}";
    write(dir.path() / "cache" / kHash, text);
    auto set = collect_timings({dir.path() / "cache" / kHash});
    ASSERT_TRUE(set.ok()) << set.error().str();
    ASSERT_EQ(set->ops.size(), static_cast<std::size_t>(n));
    for (int i = 0; i < n; i += 997) {
        const Op& op = set->ops[static_cast<std::size_t>(i)];
        EXPECT_EQ(op.sizes.front(), std::to_string(i + 1) + "x64");
        EXPECT_EQ(op.best, "mm-c1");
        EXPECT_EQ(op.choices[0].ms, i + 1.5);
        EXPECT_EQ(op.choices[1].error, "failed to benchmark (time inf)");
    }
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

// Issue 42: a session log line of wrong types (`"event": 5`, a negative or string time) costs that line
// or choice, never the whole log.
TEST(SessionTimings, WrongTypedFieldsCostTheirLineOnly) {
    std::string text =
        "{\"event\": \"session_start\", \"op\": \"mm\", \"inputs_key\": \"[]\", \"precision\": \"highest\", "
        "\"devices\": \"cpu\", \"choices\": 1e30}\n"
        "{\"event\": 5, \"choice\": \"x\"}\n"
        "{\"event\": \"measurement\", \"choice\": \"a\", \"ms\": -1000, \"status\": \"ok\"}\n"
        "{\"event\": \"measurement\", \"choice\": \"b\", \"ms\": \"0.5\", \"status\": \"ok\"}\n"
        "{\"event\": \"measurement\", \"choice\": \"c\", \"ms\": 0.5, \"status\": \"ok\"}\n";
    auto log = parse_session_log(text, "mem");
    EXPECT_EQ(log.planned_choices, 0);
    EXPECT_EQ(log.skipped_lines, 1);
    ASSERT_EQ(log.ops.size(), 1u);
    const Op& op = log.ops[0];
    ASSERT_EQ(op.choices.size(), 3u);
    EXPECT_EQ(op.best, "c");
    EXPECT_EQ(op.choices[0].error, "not a time: ms is -1000 ms: a time is never negative");
    EXPECT_EQ(op.choices[1].error, R"(not a time: ms is "0.5" (a string), not a time in ms)");
}
