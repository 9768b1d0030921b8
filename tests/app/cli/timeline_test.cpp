// `kiln-cli timeline` end to end: the real binary on the H100 fixture's TORCH_TRACE logs (cold, warm
// and changed runs). Its counts of hits, misses and bypasses are the logs' own cache events.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.hpp"

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

fs::path trace_dir(const std::string& run) { return fixture_dir() / "h100" / "trace" / run; }

// Cache events as the log holds them: one artifact record per hit, miss or bypass.
int log_events(const fs::path& log, const std::string& cache, const std::string& state) {
    std::ifstream in(log);
    const std::string needle = "{\"artifact\": {\"name\": \"" + cache + "_cache_" + state + "\"";
    int n = 0;
    for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
    return n;
}

nlohmann::json timeline_json(const std::vector<std::string>& args) {
    std::vector<std::string> argv{cli_path(), "timeline"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--json");
    auto r = run_command(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
}

TEST(CliTimeline, CountsAreTheTracesCacheEvents) {
    auto j = timeline_json({trace_dir("cold").string(), trace_dir("warm").string(), trace_dir("changed").string()});
    ASSERT_EQ(j["processes"].size(), 3u);
    EXPECT_TRUE(j["warnings"].empty());
    for (const auto& p : j["processes"]) {
        const fs::path log = p["log"].get<std::string>();
        ASSERT_TRUE(fs::is_regular_file(log)) << log;
        for (const char* cache : {"fx_graph", "aotautograd"}) {
            for (const char* state : {"hit", "miss", "bypass"}) {
                const int in_log = log_events(log, cache, state);
                EXPECT_EQ(p["counts"][cache][state].get<int>(), in_log) << log << " " << cache << " " << state;
                int listed = 0;  // the same events, compile by compile
                for (const auto& c : p["compiles"])
                    for (const auto& e : c["events"]) listed += e["cache"] == cache && e["state"] == state;
                EXPECT_EQ(listed, in_log) << log << " " << cache << " " << state;
            }
        }
        // Every hit says the compile time it saved; the process's total is the FX hits' sum (an
        // AOTAutograd hit's time includes the FX graph's compile: adding both would count it twice).
        long long saved = 0;
        for (const auto& c : p["compiles"])
            for (const auto& e : c["events"])
                if (e["state"] == "hit") {
                    ASSERT_TRUE(e["time_saved_ns"].is_number()) << e.dump();
                    EXPECT_GT(e["time_saved_ns"].get<long long>(), 0);
                    if (e["cache"] == "fx_graph") saved += e["time_saved_ns"].get<long long>();
                }
        EXPECT_EQ(p["saved_ns"].get<long long>(), saved);
    }
    // The cold run compiles everything, the warm one hits what it compiled (fixture README).
    EXPECT_EQ(j["processes"][0]["counts"]["fx_graph"]["miss"], 12);
    EXPECT_EQ(j["processes"][1]["counts"]["fx_graph"]["hit"], 6);
    EXPECT_EQ(j["processes"][1]["counts"]["fx_graph"]["miss"], 0);
    EXPECT_GT(j["processes"][1]["saved_ns"].get<long long>(), 0);
}

TEST(CliTimeline, TextSaysTheCountsFirst) {
    auto r = run_command({cli_path(), "timeline", trace_dir("warm").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string first = r.out.substr(0, r.out.find('\n'));
    EXPECT_NE(first.find("FX graph 6 hits, 0 misses, 0 bypasses"), std::string::npos) << first;
    // The hits' recorded compile times, said as what they are: not a saving measured in this run.
    EXPECT_NE(first.find("the FX hits took "), std::string::npos) << first;
    EXPECT_NE(first.find(" to compile when cached (torch's time_saved_ns, not measured here)"), std::string::npos)
        << first;
    // Each process names the GPU its keys name (issue 33: "c/c" with no device).
    EXPECT_NE(r.out.find("(pid 1031, NVIDIA H100 80GB HBM3, dedicated_log_torch_trace_"), std::string::npos) << r.out;
}

// Without a path: the TORCH_TRACE directories beside the root, in the order the runs happened
// (cold 01:15, warm 01:16, changed 01:17), not the folders' alphabetical order.
TEST(CliTimeline, RootFindsTheTracesBesideItInRunOrder) {
    auto j = timeline_json({"--root", h100_root().string()});
    ASSERT_EQ(j["processes"].size(), 3u);
    std::vector<std::string> labels;
    for (const auto& p : j["processes"]) labels.push_back(p["label"]);
    EXPECT_EQ(labels, (std::vector<std::string>{"cold", "warm", "changed"}));
}

TEST(CliTimeline, BadInputIsAClearError) {
    auto missing = run_command({cli_path(), "timeline", "/no/such/trace"});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("/no/such/trace"), std::string::npos) << missing.err;
    EXPECT_NE(missing.err.find("TORCH_TRACE"), std::string::npos) << missing.err;  // how to make one

    ScratchDir scratch("timeline");  // a root with no trace beside it
    fs::create_directories(scratch.path() / "inductor" / "fxgraph");
    auto none = run_command({cli_path(), "timeline", "--root", (scratch.path() / "inductor").string()});
    EXPECT_NE(none.exit_code, 0);
    EXPECT_NE(none.err.find("TORCH_TRACE"), std::string::npos) << none.err;
}

// A one-record log holding only a cache event (no compile before it) crashed `timeline` (SIGSEGV):
// the event is listed under a placeholder compile with no frame.
TEST(CliTimeline, CacheEventBeforeAnyCompileDoesNotCrash) {
    ScratchDir scratch("timeline-early");
    const fs::path log = scratch.path() / "evil.log";
    std::ofstream(log) << "V1126 01:16:45.677000 1031 torch/_inductor/compile_fx.py:1120] {\"artifact\": "
                          "{\"name\": \"fx_graph_cache_miss\", \"encoding\": \"json\"}}\n"
                       << "\t{\"key\": \"fabc\", \"cache_state\": \"miss\"}\n";
    auto r = run_command({cli_path(), "timeline", log.string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["processes"].size(), 1u);
    ASSERT_EQ(j["processes"][0]["compiles"].size(), 1u);
    EXPECT_EQ(j["processes"][0]["compiles"][0]["function"], "");
    EXPECT_EQ(j["processes"][0]["compiles"][0]["events"][0]["key"], "fabc");
    EXPECT_EQ(j["processes"][0]["counts"]["fx_graph"]["miss"], 1);
    auto text = run_command({cli_path(), "timeline", log.string()});
    EXPECT_EQ(text.exit_code, 0) << text.err;
}

// A payload line of 200 MB was held whole (twice: the line and the payload), 600 MB of it took 1 GB
// of memory. Records past 64 MB are skipped and named; the reader's memory stays bounded by that cap.
TEST(CliTimeline, HugePayloadIsSkippedWithBoundedMemory) {
    ScratchDir scratch("timeline-huge");
    const fs::path log = scratch.path() / "huge.log";
    {
        const std::string header =
            "V1126 01:16:45.677000 1031 torch/_inductor/compile_fx.py:1120] {\"artifact\": "
            "{\"name\": \"fx_graph_cache_miss\", \"encoding\": \"json\"}}\n";
        std::ofstream out(log);
        out << header << "\t{\"key\": \"fabc\", \"cache_state\": \"miss\"}\n";
        out << "V1126 01:16:45.700000 1031 torch/_inductor/graph.py:1] {\"inductor_output_code\": {}}\n\t";
        const std::string mb(1 << 20, 'x');
        for (int i = 0; i < 200; ++i) out << mb;
        out << "\n" << header << "\t{\"key\": \"fdef\", \"cache_state\": \"miss\"}\n";
    }
    auto r = run_command({cli_path(), "timeline", log.string(), "--json"});
    rusage usage{};
    ASSERT_EQ(::getrusage(RUSAGE_CHILDREN, &usage), 0);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["processes"][0]["counts"]["fx_graph"]["miss"], 2);
    ASSERT_EQ(j["warnings"].size(), 1u);
    EXPECT_NE(j["warnings"][0].get<std::string>().find("huge.log:3-4: a record larger than 64 MB"), std::string::npos)
        << j["warnings"];
    EXPECT_LT(usage.ru_maxrss, 160L * 1024) << "KiB at most, for a 200 MB line";  // ru_maxrss is in KiB
}

// Issue 41.5: two processes whose labels read alike are told apart by their pid in the label; the
// heading then says each pid once, not again beside the device and the log.
TEST(CliTimeline, AHeadingSaysThePidOnce) {
    ScratchDir dir("cli-timeline-pid");
    fs::create_directories(dir.path() / "t/run");
    for (const char* run : {"cold", "warm"})
        for (const auto& log : fs::directory_iterator(trace_dir(run)))
            fs::copy_file(log.path(), dir.path() / "t/run" / (std::string(run) + ".log"));
    auto r = run_command({cli_path(), "timeline", (dir.path() / "t").string(), trace_dir("changed").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    int headings = 0;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] == ' ' || line.find(" compiles in ") == std::string::npos) continue;
        ++headings;
        auto first = line.find("pid ");
        ASSERT_NE(first, std::string::npos) << line;
        EXPECT_EQ(line.find("pid ", first + 1), std::string::npos) << line;
    }
    EXPECT_EQ(headings, 3) << r.out;
    EXPECT_NE(r.out.find("t/run (pid 447) (NVIDIA H100 80GB HBM3, cold.log)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kiln::test
