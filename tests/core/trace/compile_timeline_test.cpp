// The compile timeline of the fixtures' TORCH_TRACE logs: per process each compile with its frame,
// its cache events (counted against the logs' own artifact records), times and savings.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "test_support.hpp"
#include "trace/compile_timeline.hpp"

namespace {

using namespace kiln::trace;

std::filesystem::path trace(const char* run) { return kiln::test::fixture_dir() / "h100" / "trace" / run; }

// Counts the records whose header names this artifact, straight from the log text.
std::size_t artifacts_in(const std::filesystem::path& dir, const std::string& name) {
    std::size_t n = 0;
    for (const auto& f : std::filesystem::directory_iterator(dir)) {
        std::ifstream in(f.path());
        std::string line;
        const std::string needle = "{\"artifact\": {\"name\": \"" + name + "\"";
        while (std::getline(in, line))
            if (!line.empty() && line[0] != '\t' && line.find(needle) != std::string::npos) ++n;
    }
    return n;
}

TEST(CompileTimeline, CountsEqualTheLogsCacheEvents) {
    for (const char* run : {"cold", "warm", "changed"}) {
        auto t = read_compile_timeline(trace(run));
        ASSERT_TRUE(t.ok()) << t.error().str();
        ASSERT_EQ(t->processes.size(), 1u) << run;
        const auto& p = t->processes[0];
        EXPECT_EQ(p.label, run);
        for (const char* cache : {"fx_graph", "aotautograd"})
            for (const char* state : {"hit", "miss", "bypass"})
                EXPECT_EQ(p.count(cache, state), artifacts_in(trace(run), std::string(cache) + "_cache_" + state))
                    << run << " " << cache << " " << state;
    }
}

TEST(CompileTimeline, ColdCompilesCarryFramesAndTimes) {
    auto t = read_compile_timeline(trace("cold"));
    ASSERT_TRUE(t.ok()) << t.error().str();
    const auto& p = t->processes[0];
    EXPECT_FALSE(p.pid.empty());
    // One compile per dynamo_start and one per backward compiled lazily (the MLP's), in order; the first
    // is f() of the generator script.
    std::size_t starts = 0, backwards = 0;
    {
        std::ifstream in(std::filesystem::directory_iterator(trace("cold"))->path());
        std::string line;
        while (std::getline(in, line)) {
            starts += line.find("] {\"dynamo_start\": ") != std::string::npos;
            backwards += line.find("] {\"bwd_compilation_metrics\": ") != std::string::npos;
        }
    }
    EXPECT_EQ(backwards, 1u);
    ASSERT_EQ(p.compiles.size(), starts + backwards);
    const auto& first = p.compiles[0];
    EXPECT_EQ(first.function, "f");
    EXPECT_EQ(first.line, 47);
    EXPECT_NE(first.file.find("gen_inductor_cache.py"), std::string::npos);
    EXPECT_EQ(first.compile_id, "0/0");
    ASSERT_TRUE(first.compile_s.has_value());
    EXPECT_GT(*first.compile_s, 1.0);
    // A recompile of the same frame is 0/1.
    bool recompile = false;
    for (const auto& c : p.compiles) recompile |= c.compile_id == "0/1";
    EXPECT_TRUE(recompile);
    for (const auto& c : p.compiles)
        for (const auto& e : c.events) {
            EXPECT_EQ(e.state, "miss");
            EXPECT_EQ(e.detail, "full_miss");
            if (e.cache == "fx_graph") {
                EXPECT_TRUE(e.time_taken_ns.has_value()) << e.key;
            }
        }
    EXPECT_EQ(p.saved_ns(), 0);
}

TEST(CompileTimeline, WarmHitsSaveTheEntriesCompileTimes) {
    auto cold = read_compile_timeline(trace("cold"));
    auto warm = read_compile_timeline(trace("warm"));
    ASSERT_TRUE(cold.ok() && warm.ok());
    // Each FX hit saves what the cold miss of the same key took to compile.
    std::map<std::string, std::int64_t> taken;
    for (const auto& c : cold->processes[0].compiles)
        for (const auto& e : c.events)
            if (e.time_taken_ns) taken[e.key] = *e.time_taken_ns;
    std::int64_t saved = 0;
    std::size_t hits = 0;
    for (const auto& c : warm->processes[0].compiles)
        for (const auto& e : c.events) {
            if (e.cache != "fx_graph" || e.state != "hit") continue;
            ++hits;
            ASSERT_TRUE(e.time_saved_ns.has_value());
            EXPECT_EQ(*e.time_saved_ns, taken.at(e.key));
            saved += *e.time_saved_ns;
        }
    EXPECT_GT(hits, 0u);
    EXPECT_EQ(warm->processes[0].saved_ns(), saved);
    // AOT hits carry their saving in ms.
    for (const auto& c : warm->processes[0].compiles)
        for (const auto& e : c.events)
            if (e.cache == "aotautograd") {
                EXPECT_TRUE(e.time_saved_ns.has_value());
            }
}

TEST(CompileTimeline, GuardMissNamesTheFailingGuards) {
    auto t = read_compile_timeline(kiln::test::fixture_dir() / "two" / "trace" / "huge");
    ASSERT_TRUE(t.ok()) << t.error().str();
    bool found = false;
    for (const auto& c : t->processes[0].compiles)
        for (const auto& e : c.events)
            if (e.cache == "fx_graph" && e.detail == "guard_miss") {
                found = true;
                EXPECT_EQ(e.reason, "2 <= L['t0'] and L['t0'] <= 2147483647");
                EXPECT_EQ(c.function, "pw");
            }
    EXPECT_TRUE(found);
}

TEST(CompileTimeline, DirectoryOfProcessesAndTraceDirsBesideARoot) {
    const auto base = kiln::test::fixture_dir() / "h100h200";
    auto dirs = find_trace_dirs(kiln::test::h100_h200_root());
    ASSERT_EQ(dirs.size(), 2u);
    EXPECT_EQ(dirs[0], base / "h100" / "trace");
    EXPECT_EQ(dirs[1], base / "h200" / "trace");
    auto t = read_compile_timeline(dirs[1]);
    ASSERT_TRUE(t.ok()) << t.error().str();
    ASSERT_EQ(t->processes.size(), 2u);
    // In the order they ran (warm 08:49, mega 08:50), not by folder name.
    EXPECT_EQ(t->processes[0].label, "warm");
    EXPECT_EQ(t->processes[1].label, "mega");
    EXPECT_EQ(find_trace_dirs(kiln::test::h100_root()),
              std::vector<std::filesystem::path>{kiln::test::fixture_dir() / "h100" / "trace"});
    EXPECT_EQ(key_dir_in_root("/r", "fmo2n45uv3b6"), std::filesystem::path("/r/fxgraph/mo/fmo2n45uv3b6"));
    EXPECT_EQ(key_dir_in_root("/r", "advq"), std::filesystem::path("/r/aotautograd/advq"));
}

// What a new user hit: processes labelled `c/c` with no device. Logs right in the folders read name the
// run by the folder above ("a/c"), never the folder twice; logs of one folder are told apart by rank
// (torch names a rank's log `..._rank_N_...`), else pid; each says the GPU its keys name.
TEST(CompileTimeline, ProcessesSayRunRankAndDevice) {
    kiln::test::ScratchDir dir("timeline_ranks");
    namespace fs = std::filesystem;
    const fs::path a = dir.path() / "a" / "c", b = dir.path() / "b" / "c";
    fs::create_directories(a);
    fs::create_directories(b);
    const fs::path cold = fs::directory_iterator(trace("cold"))->path();
    const fs::path h200 =
        fs::directory_iterator(kiln::test::fixture_dir() / "h100h200" / "h200" / "trace" / "warm")->path();
    fs::copy_file(cold, a / "dedicated_log_torch_trace_rank_0_ab12.log");
    fs::copy_file(h200, b / "dedicated_log_torch_trace_rank_1_cd34.log");
    auto t = read_compile_timelines({a, b});
    ASSERT_EQ(t.processes.size(), 2u);
    EXPECT_EQ(t.processes[0].label, "a/c");
    EXPECT_EQ(t.processes[1].label, "b/c");
    EXPECT_EQ(t.processes[0].rank, "0");
    EXPECT_EQ(t.processes[1].rank, "1");
    EXPECT_EQ(t.processes[0].device, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(t.processes[1].device, "NVIDIA H200");
    EXPECT_EQ(to_json(t)["processes"][1]["device"], "NVIDIA H200");
    // Two ranks' logs in one folder.
    fs::copy_file(b / "dedicated_log_torch_trace_rank_1_cd34.log", a / "dedicated_log_torch_trace_rank_1_cd34.log");
    t = read_compile_timelines({a});
    ASSERT_EQ(t.processes.size(), 2u);
    EXPECT_EQ(t.processes[0].label, "c (rank 0)");
    EXPECT_EQ(t.processes[1].label, "c (rank 1)");
    // Without ranks, the pid tells them apart.
    fs::rename(a / "dedicated_log_torch_trace_rank_0_ab12.log", a / "x.log");
    fs::rename(a / "dedicated_log_torch_trace_rank_1_cd34.log", a / "y.log");
    t = read_compile_timelines({a});
    ASSERT_EQ(t.processes.size(), 2u);
    EXPECT_EQ(t.processes[0].label, "c (pid " + t.processes[0].pid + ")");
    EXPECT_NE(t.processes[0].label, t.processes[1].label);
    // The fixture's runs, each folder opened on its own: "h100/cold", not "cold/cold".
    t = read_compile_timelines({trace("cold"), trace("warm")});
    ASSERT_EQ(t.processes.size(), 2u);
    EXPECT_EQ(t.processes[0].label, "h100/cold");
    EXPECT_EQ(t.processes[1].label, "h100/warm");
}

TEST(CompileTimeline, BadInputIsAClearError) {
    kiln::test::ScratchDir dir("timeline-bad");
    auto missing = read_compile_timeline(dir.path() / "nope");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, kiln::Errc::not_found);
    std::ofstream(dir.path() / "not-a-log.log") << "hello\nworld\n";
    auto notlog = read_compile_timeline(dir.path() / "not-a-log.log");
    ASSERT_FALSE(notlog.ok());
    EXPECT_EQ(notlog.error().code, kiln::Errc::parse);
}

// A log cut off inside a cache event (the run still going, or a truncated copy) failed as a whole; now
// the events before the cut are the timeline, and the warnings name the cut-off tail by its lines.
TEST(CompileTimeline, CutOffLogKeepsWhatComesBeforeTheCut) {
    kiln::test::ScratchDir dir("timeline-cut");
    std::ifstream in(std::filesystem::directory_iterator(trace("warm"))->path());
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const std::string hit = "] {\"artifact\": {\"name\": \"fx_graph_cache_hit\"";
    const auto second_hit = text.find(hit, text.find(hit) + 1);
    const auto cut = text.find("\t{", second_hit);
    std::ofstream(dir.path() / "cut.log") << text.substr(0, cut + 40);
    auto cutlog = read_compile_timeline(dir.path() / "cut.log");
    ASSERT_TRUE(cutlog.ok()) << cutlog.error().str();
    EXPECT_EQ(cutlog->processes.at(0).count("fx_graph", "hit"), 1u);
    ASSERT_EQ(cutlog->warnings.size(), 1u);
    EXPECT_NE(cutlog->warnings[0].find("cut.log:"), std::string::npos) << cutlog->warnings[0];
    EXPECT_NE(cutlog->warnings[0].find("truncated tail"), std::string::npos) << cutlog->warnings[0];
}

// A log whose only record is a cache event, before any dynamo_start, once crashed the timeline (an
// empty initializer list "inserted" as the placeholder, then a write through begin() of an empty
// vector); anyone could plant one in a trace folder beside a shared cache. The event now belongs to
// a placeholder compile, for read_compile_timelines (the GUI's reader) as for one file.
TEST(CompileTimeline, CacheEventBeforeAnyCompileGoesToAPlaceholder) {
    kiln::test::ScratchDir dir("timeline-early");
    std::filesystem::create_directories(dir.path() / "trace");
    const std::string header =
        "V1126 01:16:45.677000 1031 torch/_inductor/compile_fx.py:1120] {\"artifact\": {\"name\": "
        "\"fx_graph_cache_miss\", \"encoding\": \"json\"}}\n";
    std::ofstream(dir.path() / "trace" / "evil.log")
        << header << "\t{\"key\": \"fabc\", \"cache_state\": \"miss\", \"components\": []}\n";
    std::filesystem::create_directories(dir.path() / "inductor" / "fxgraph");
    const auto dirs = find_trace_dirs(dir.path() / "inductor");
    ASSERT_EQ(dirs, std::vector<std::filesystem::path>{dir.path() / "trace"});
    CompileTimeline t = read_compile_timelines(dirs);
    ASSERT_EQ(t.processes.size(), 1u);
    ASSERT_EQ(t.processes[0].compiles.size(), 1u);
    const auto& placeholder = t.processes[0].compiles[0];
    EXPECT_EQ(placeholder.record_line, 0u);
    EXPECT_TRUE(placeholder.function.empty());
    ASSERT_EQ(placeholder.events.size(), 1u);
    EXPECT_EQ(placeholder.events[0].key, "fabc");
    EXPECT_EQ(placeholder.events[0].state, "miss");
    EXPECT_TRUE(frames_beside_root(dir.path() / "inductor").empty());  // a placeholder names no frame

    // Before a real compile: the early event is the placeholder's, the later one the compile's.
    std::ofstream(dir.path() / "trace" / "evil.log", std::ios::app)
        << "V1126 01:16:46.000000 1031 torch/_dynamo/convert_frame.py:1] {\"dynamo_start\": {\"stack\": [{\"line\": "
           "3, \"name\": \"f\", \"filename\": \"x.py\"}]}, \"frame_id\": 0, \"frame_compile_id\": 0}\n"
        << header << "\t{\"key\": \"fdef\", \"cache_state\": \"miss\"}\n";
    auto two = read_compile_timeline(dir.path() / "trace" / "evil.log");
    ASSERT_TRUE(two.ok()) << two.error().str();
    ASSERT_EQ(two->processes[0].compiles.size(), 2u);
    EXPECT_EQ(two->processes[0].compiles[0].events.at(0).key, "fabc");
    EXPECT_EQ(two->processes[0].compiles[1].function, "f");
    EXPECT_EQ(two->processes[0].compiles[1].events.at(0).key, "fdef");
}

// Found by fuzz_trace_reader: a frame line of 1e30 (compilation_metrics' co_firstlineno, dynamo_start's
// line) was converted to int, which is undefined; such a line is now 0 (unknown).
TEST(CompileTimeline, AnOutOfRangeLineNumberIsUnknown) {
    kiln::test::ScratchDir dir("timeline-line");
    std::ofstream(dir.path() / "l.log")
        << "V1126 01:16:46.000000 1031 torch/_dynamo/convert_frame.py:1] {\"dynamo_start\": {\"stack\": [{\"line\": "
           "1e30, \"name\": \"f\", \"filename\": \"x.py\"}]}, \"frame_id\": 0, \"frame_compile_id\": 0}\n"
        << "V1126 01:16:47.000000 1031 torch/_dynamo/utils.py:1] {\"compilation_metrics\": {\"co_name\": \"g\", "
           "\"co_firstlineno\": -1e30}}\n";
    auto t = read_compile_timeline(dir.path() / "l.log");
    ASSERT_TRUE(t.ok()) << t.error().str();
    ASSERT_EQ(t->processes.at(0).compiles.size(), 1u);
    EXPECT_EQ(t->processes[0].compiles[0].function, "f");
    EXPECT_EQ(t->processes[0].compiles[0].line, 0);
}

}  // namespace
