// kiln-cli misses on the fixture's TORCH_TRACE logs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "test_support.hpp"

namespace {

using kiln::test::run_command;
using nlohmann::json;

std::string trace(const char* run) { return (kiln::test::fixture_dir() / "h100/trace" / run).string(); }

// `kiln-cli misses TRACE --root <two-entries fixture> --json`: its report (null, with the failure recorded,
// when the command fails).
json misses_on_two_entries(const std::filesystem::path& trace) {
    auto r = run_command({kiln::test::cli_path(), "misses", trace.string(), "--root",
                          kiln::test::two_entries_root().string(), "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? json::parse(r.out) : json();
}

// The report's events of one cache ("fx_graph" or "aotautograd").
json events_of(const json& report, const char* cache) {
    json out = json::array();
    for (const auto& e : report["events"])
        if (e["cache"] == cache) out.push_back(e);
    return out;
}

// How many cache artifacts of a kind the raw trace holds: the count `misses` must report.
std::size_t artifacts_in(const std::filesystem::path& dir, const std::string& prefix) {
    std::size_t n = 0;
    for (const auto& f : std::filesystem::recursive_directory_iterator(dir)) {
        if (!f.is_regular_file()) continue;
        std::ifstream in(f.path());
        std::string line;
        while (std::getline(in, line)) n += line.find("{\"artifact\": {\"name\": \"" + prefix) != std::string::npos;
    }
    return n;
}

TEST(CliMisses, ChangedRunNamesTheTwoConfigs) {
    auto r = run_command(
        {kiln::test::cli_path(), "misses", trace("changed"), "--root", kiln::test::h100_root().string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = json::parse(r.out);
    auto fx = events_of(j, "fx_graph");
    ASSERT_EQ(fx.size(), 1u);
    const auto& e = fx[0];
    EXPECT_EQ(e["state"], "miss");
    EXPECT_EQ(e["compile_id"], "0/0");
    EXPECT_EQ(e["key"], "fbthtgcfn6jl7ghas2zkbej2nhbianoo76mqbeuwqawaoxcxbhv5");
    EXPECT_EQ(e["time"], "1126 01:17:33.288000");
    EXPECT_EQ(e["closest"]["key"], "fmo2n45uv3b62qq26v3dxc7irosaefewdkqwv5x66fwyzrtffovi");
    EXPECT_EQ(e["closest"]["entry"].get<std::string>().rfind("fxgraph/mo/fmo2n45uv3b6", 0), 0u);
    EXPECT_EQ(e["closest"]["differing"],
              json::parse(R"(["inductor_config[realize_opcount_threshold]", "inductor_config[max_fusion_size]"])"));
    EXPECT_EQ(j["entries_compared"], 13);
}

TEST(CliMisses, WarmRunListsHits) {
    auto r = run_command({kiln::test::cli_path(), "misses", trace("warm"), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = json::parse(r.out);
    auto fx = events_of(j, "fx_graph");
    ASSERT_EQ(fx.size(), 6u);
    for (const auto& e : fx) {
        EXPECT_EQ(e["state"], "hit");
        EXPECT_FALSE(e.contains("closest"));
        EXPECT_TRUE(e["time_saved_ns"].is_number());
    }
}

TEST(CliMisses, TextOutput) {
    auto r =
        run_command({kiln::test::cli_path(), "misses", trace("changed"), "--root", kiln::test::h100_root().string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("1 FX graph cache events (1 misses)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("inductor_config[max_fusion_size]: cached 64 -> this run 32"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("key miss"), std::string::npos) << r.out;
}

// The issue's story: the second process of the two-entries fixture missed because its size failed
// Inductor's 32-bit indexing guard. The trace says guard_miss; Kiln names the failing conjunct of
// the entry under the same key and the value from the trace's create_symbol, and compares with no
// other key.
TEST(CliMisses, GuardMissNamesTheFailingConjunct) {
    const auto two = kiln::test::two_entries_root().parent_path();
    auto j = misses_on_two_entries(two / "trace/huge");
    ASSERT_FALSE(j.is_null());
    auto fx = events_of(j, "fx_graph");
    ASSERT_EQ(fx.size(), 1u);
    const auto& e = fx[0];
    EXPECT_EQ(e["class"], "guard miss");
    EXPECT_EQ(e["function"], "pw");
    EXPECT_EQ(e["first_line"], 67);
    EXPECT_EQ(e["pid"], 1338);
    EXPECT_FALSE(e.contains("closest"));
    const auto& g = e["guard_miss"];
    ASSERT_EQ(g["symbols"].size(), 1u);
    EXPECT_EQ(g["symbols"][0]["name"], "t0");
    EXPECT_EQ(g["symbols"][0]["symbol"], "s77");
    EXPECT_EQ(g["symbols"][0]["value"], 2147483664LL);
    EXPECT_EQ(g["symbols"][0]["source"], "L['x'].size()[0]");
    ASSERT_EQ(g["entries"].size(), 2u);
    EXPECT_EQ(g["entries"][0]["file"], "deg4ivyb4kcgy5eslbjybulmyzbjan4oasgg56equm4f3dzcmga");
    EXPECT_FALSE(g["entries"][0]["pass"].get<bool>());
    EXPECT_EQ(g["entries"][0]["failing"], "L['t0'] <= 2147483647 (L['t0'] = 2147483664)");
    EXPECT_FALSE(g["entries"][0]["written_after_miss"].get<bool>());
    EXPECT_TRUE(g["entries"][1]["written_after_miss"].get<bool>());  // the entry this compile wrote

    auto r = run_command({kiln::test::cli_path(), "misses", (two / "trace/huge").string(), "--root",
                          kiln::test::two_entries_root().string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("guard miss"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("t0 = s77 = 2147483664 (L['x'].size()[0])"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fails: L['t0'] <= 2147483647"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("(pid 1338)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("at 11-26 01:28:00.047"), std::string::npos) << r.out;
}

// The first process found no dir under the key: a key miss, whose comparison may only use entries
// written before it (here there are none: the cache was empty).
TEST(CliMisses, KeyMissComparesOnlyWithOlderEntries) {
    const auto two = kiln::test::two_entries_root().parent_path();
    auto j = misses_on_two_entries(two / "trace/psmall");
    ASSERT_FALSE(j.is_null());
    auto fx = events_of(j, "fx_graph");
    ASSERT_EQ(fx.size(), 1u);
    EXPECT_EQ(fx[0]["class"], "key miss");
    EXPECT_TRUE(fx[0]["closest"].is_null());
}

TEST(CliMisses, BadInput) {
    auto r = run_command({kiln::test::cli_path(), "misses", "/nonexistent.log"});
    EXPECT_EQ(r.exit_code, 2);
    r = run_command({kiln::test::cli_path(), "misses", trace("changed"), "--root", kiln::test::fixture_dir().string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no fxgraph/ directory"), std::string::npos) << r.err;
}

}  // namespace

// Issue 16.6: a TORCH_TRACE record whose JSON nests 100000 deep is an error naming the log and line
// (every reader walks that JSON recursively), never a crash; `diff` and `timeline` read it the same way.
TEST(CliMisses, DeeplyNestedRecordIsAnErrorNamingTheLine) {
    kiln::test::ScratchDir dir("cli-misses-deep");
    const auto log = dir.path() / "dedicated_log_torch_trace_x.log";
    std::ofstream(log) << "V1126 01:17:33.288000 1311 torch/_dynamo/convert_frame.py:1] {\"dynamo_start\": {}}\n"
                       << "V1126 01:17:34.288000 1311 torch/_inductor/codecache.py:2] {\"a\": "
                       << std::string(100000, '[') << "\n";
    for (const char* cmd : {"misses", "diff"}) {
        std::vector<std::string> argv{kiln::test::cli_path(), cmd, log.string()};
        if (std::string(cmd) == "diff") argv.push_back(log.string());
        auto r = kiln::test::run_command(argv);
        EXPECT_EQ(r.exit_code, 1) << cmd << ": " << r.err;
        EXPECT_NE(r.err.find(log.string() + ":2"), std::string::npos) << cmd << ": " << r.err;
        EXPECT_NE(r.err.find("nested deeper than"), std::string::npos) << cmd << ": " << r.err;
    }
}

// AOTAutograd events are classified too: the two-entries fixture's second process missed the AOT
// cache by the same guard (torch logs aotautograd_cache_miss, guard_miss, key a4pxxvose2w4...): the
// AOT entries under that key, the failing conjunct and the trace's value, linked to the FX event.
TEST(CliMisses, AotGuardMissNamesTheFailingConjunct) {
    const auto two = kiln::test::two_entries_root().parent_path();
    auto j = misses_on_two_entries(two / "trace");
    ASSERT_FALSE(j.is_null());
    auto fx = events_of(j, "fx_graph");
    auto aot = events_of(j, "aotautograd");
    EXPECT_EQ(fx.size(),
              artifacts_in(two / "trace", "fx_graph_cache_") + artifacts_in(two / "trace", "fx_graph_bundled_cache_"));
    EXPECT_EQ(aot.size(), artifacts_in(two / "trace", "aotautograd_cache_"));
    ASSERT_GE(aot.size(), 2u);
    const json* guard = nullptr;
    for (const auto& e : aot) {
        EXPECT_EQ(e["label"], "AOT");
        if (e["class"] == "guard miss") {
            guard = &e;
        } else {
            EXPECT_EQ(e["class"], "key miss");  // the first process: an empty cache
        }
    }
    ASSERT_NE(guard, nullptr);
    EXPECT_EQ((*guard)["key"].get<std::string>().rfind("a4pxxvose2w4", 0), 0u);
    const auto& g = (*guard)["guard_miss"];
    EXPECT_EQ(g["key_dir"].get<std::string>().rfind("aotautograd/a4pxxvose2w4", 0), 0u);
    ASSERT_EQ(g["symbols"].size(), 1u);
    EXPECT_EQ(g["symbols"][0]["value"], 2147483664LL);
    ASSERT_EQ(g["entries"].size(), 2u);
    bool failing = false;
    for (const auto& e : g["entries"])
        failing = failing || e["failing"] == "L['t0'] <= 2147483647 (L['t0'] = 2147483664)";
    EXPECT_TRUE(failing) << g.dump();
    // The entry that holds was written by this compile (after the miss), as for the FX entry.
    for (const auto& e : g["entries"])
        if (e["pass"].get<bool>()) {
            EXPECT_TRUE(e["written_after_miss"].get<bool>()) << e.dump();
        }
    // Linked to the FX guard miss of the same compile, both ways.
    ASSERT_EQ((*guard)["fx_events"].size(), 1u);
    const auto fx_index = (*guard)["fx_events"][0].get<std::size_t>();
    bool linked = false;
    for (const auto& e : fx)
        if (e["index"] == fx_index) {
            EXPECT_EQ(e["class"], "guard miss");
            EXPECT_EQ(e["aot_event"], (*guard)["index"]);
            linked = true;
        }
    EXPECT_TRUE(linked);

    auto text = run_command({kiln::test::cli_path(), "misses", (two / "trace").string(), "--root",
                             kiln::test::two_entries_root().string()});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find(std::to_string(aot.size()) + " AOTAutograd cache events"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("AOT#"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("(aotautograd/a4pxxvose2w4"), std::string::npos) << text.out;
}

namespace {

// The fixture's warm log cut off inside its third FX cache hit (mid-payload).
std::filesystem::path cut_warm_log(const std::filesystem::path& dir) {
    std::ifstream in(std::filesystem::directory_iterator(trace("warm"))->path());
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const std::string hit = "] {\"artifact\": {\"name\": \"fx_graph_cache_hit\"";
    std::size_t at = 0;
    for (int i = 0; i < 3; ++i) at = text.find(hit, at + 1);
    const auto log = dir / "cut.log";
    std::ofstream(log) << text.substr(0, text.find("\t{", at) + 40);
    return log;
}

}  // namespace

// One cache event cut off at the end of a log (a run still writing it, a truncated copy) made `misses`
// and `timeline` fail outright. Both report the events before it and name the truncated tail.
TEST(CliMisses, CutOffLogReportsTheRestAndNamesTheTail) {
    kiln::test::ScratchDir dir("cli-misses-cut");
    const auto log = cut_warm_log(dir.path());
    auto m = run_command({kiln::test::cli_path(), "misses", log.string(), "--json"});
    ASSERT_EQ(m.exit_code, 0) << m.err;
    json j = json::parse(m.out);
    std::size_t fx_hits = 0;
    for (const auto& e : j["events"]) fx_hits += e["cache"] == "fx_graph" && e["state"] == "hit";
    EXPECT_EQ(fx_hits, 2u);
    ASSERT_EQ(j["gaps"].size(), 1u);
    EXPECT_NE(j["gaps"][0].get<std::string>().find("truncated tail"), std::string::npos) << j["gaps"];
    EXPECT_NE(m.err.find("cut.log:"), std::string::npos) << m.err;

    auto t = run_command({kiln::test::cli_path(), "timeline", log.string(), "--json"});
    ASSERT_EQ(t.exit_code, 0) << t.err;
    json tj = json::parse(t.out);
    EXPECT_EQ(tj["processes"][0]["counts"]["fx_graph"]["hit"], 2);
    ASSERT_EQ(tj["warnings"].size(), 1u);
    EXPECT_NE(tj["warnings"][0].get<std::string>().find("truncated tail"), std::string::npos) << tj["warnings"];
}

// Invalid UTF-8 inside a log said "without a JSON object payload (the log may be truncated)".
TEST(CliMisses, InvalidUtf8SaysSoWithLineAndByte) {
    kiln::test::ScratchDir dir("cli-misses-utf8");
    const auto log = dir.path() / "bad.log";
    const std::string header =
        "V1126 01:17:33.288000 1311 torch/_inductor/compile_fx.py:1120] {\"artifact\": "
        "{\"name\": \"fx_graph_cache_miss\", \"encoding\": \"json\"}}\n";
    std::ofstream(log) << header << "\t{\"key\": \"fab\xc3\x28\", \"cache_state\": \"miss\"}\n"
                       << header << "\t{\"key\": \"fcd\", \"cache_state\": \"miss\"}\n";
    auto r = run_command({kiln::test::cli_path(), "misses", log.string()});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("not valid UTF-8 (line 2, byte 14)"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("may be truncated"), std::string::npos) << r.err;
}

// Issue 41.5: a Mega-Cache blob as --root is compared as a root is. Its unpacked files were all written
// just now, so their mtimes say nothing; an entry this run missed (and so wrote) dates from that miss:
// the run's first miss has nothing older to compare with, the next one is compared with what the first
// wrote, instead of "no entry written before this miss" for every event.
TEST(CliMisses, ABlobRootIsComparedByWhenTheRunWroteItsEntries) {
    const auto h200 = kiln::test::fixture_dir() / "h100h200/h200";
    auto r = run_command({kiln::test::cli_path(), "misses", (h200 / "trace/warm").string(), "--root",
                          (h200 / "megacache.bin").string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto fx = events_of(json::parse(r.out), "fx_graph");
    std::vector<json> misses;
    for (const auto& e : fx)
        if (e["class"] == "key miss") misses.push_back(e);
    ASSERT_GE(misses.size(), 2u) << r.out;
    EXPECT_TRUE(misses[0]["closest"].is_null()) << misses[0].dump();
    ASSERT_TRUE(misses[1]["closest"].is_object()) << misses[1].dump();
    EXPECT_EQ(misses[1]["closest"]["key"], misses[0]["key"]);
    EXPECT_EQ(r.out.find("kiln-blob"), std::string::npos);
}
