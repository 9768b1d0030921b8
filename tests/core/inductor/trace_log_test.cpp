// TORCH_TRACE reading (§10) on the fixture's cold, warm and changed logs.
#include <gtest/gtest.h>

#include <fstream>

#include "inductor/trace_log.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln::inductor;

std::filesystem::path trace_dir(const char* run) { return kiln::test::fixture_dir() / "h100" / "trace" / run; }

std::size_t count(const std::vector<CacheEvent>& ev, const std::string& cache, const std::string& state) {
    std::size_t n = 0;
    for (const auto& e : ev) n += e.cache == cache && e.state == state;
    return n;
}

TEST(TraceLog, ColdRunMissesEverything) {
    auto ev = read_trace_logs(trace_dir("cold"));
    ASSERT_TRUE(ev.ok()) << ev.error().str();
    EXPECT_EQ(count(*ev, "fx_graph", "miss"), 12u);
    EXPECT_EQ(count(*ev, "fx_graph", "hit"), 0u);
    EXPECT_EQ(count(*ev, "aotautograd", "miss"), 11u);
}

TEST(TraceLog, WarmRunHits) {
    auto ev = read_trace_logs(trace_dir("warm"));
    ASSERT_TRUE(ev.ok()) << ev.error().str();
    EXPECT_EQ(count(*ev, "fx_graph", "hit"), 6u);
    EXPECT_EQ(count(*ev, "aotautograd", "hit"), 5u);
    for (const auto& e : *ev) {
        if (e.cache != "fx_graph") continue;
        EXPECT_EQ(e.key.size(), 52u);
        EXPECT_EQ(e.key[0], 'f');
        EXPECT_FALSE(e.compile_id.empty());  // hits carry no compile_id: it comes from the header
        EXPECT_TRUE(e.time_saved_ns.has_value());
        EXPECT_GT(e.components.size(), 500u);
    }
}

TEST(TraceLog, ChangedRunHasOneFxMiss) {
    auto ev = read_trace_logs(trace_dir("changed"));
    ASSERT_TRUE(ev.ok()) << ev.error().str();
    std::vector<CacheEvent> fx;
    for (const auto& e : *ev)
        if (e.cache == "fx_graph") fx.push_back(e);
    ASSERT_EQ(fx.size(), 1u);
    const CacheEvent& e = fx[0];
    EXPECT_EQ(e.state, "miss");
    EXPECT_EQ(e.artifact, "fx_graph_cache_miss");
    EXPECT_EQ(e.key, "fbthtgcfn6jl7ghas2zkbej2nhbianoo76mqbeuwqawaoxcxbhv5");
    EXPECT_EQ(e.compile_id, "0/0");
    EXPECT_EQ(e.status_detailed, "full_miss");
    EXPECT_EQ(e.timestamp, "1126 01:17:33.288000");
    EXPECT_EQ(e.time_taken_ns, 247131973);
    EXPECT_EQ(e.line, 2752u);
    EXPECT_EQ(e.components.size(), 541u);
    EXPECT_EQ(e.components[0].substr(0, 58), "[isrmcexjb5ew4gwqxkk5blhf6prridxpvx6cdf7m6nzmgbgtg5j] gm: ");
}

TEST(TraceLog, BadInput) {
    kiln::test::ScratchDir dir("trace_bad");
    auto missing = read_trace_log(dir.path() / "nope.log");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, kiln::Errc::not_found);

    auto not_trace = dir.path() / "plain.txt";
    std::ofstream(not_trace) << "hello\nworld\n";
    auto plain = read_trace_log(not_trace);
    ASSERT_FALSE(plain.ok());
    EXPECT_EQ(plain.error().code, kiln::Errc::parse);

    // A cache event whose payload was cut off is an error naming the line.
    auto cut = dir.path() / "cut.log";
    std::ofstream(cut) << "V1126 01:17:33.288000 1311 torch/_inductor/compile_fx.py:1120] {\"artifact\": "
                          "{\"name\": \"fx_graph_cache_miss\", \"encoding\": \"json\"}, \"frame_id\": 0}\n"
                          "\t{\"key\": \"fabc\", \"compo\n";
    auto r = read_trace_log(cut);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().context, cut.string() + ":1");
}

TEST(TraceLog, EveryRecordInOrderAndEarlyStop) {
    auto files = trace_log_files(kiln::test::fixture_dir() / "h100h200/h200/trace");
    ASSERT_TRUE(files.ok());
    ASSERT_EQ(files->size(), 2u);  // mega/ and warm/, sorted
    EXPECT_NE((*files)[0].string().find("/mega/"), std::string::npos);
    std::size_t records = 0, last_line = 0, metrics_with_payload = 0;
    ASSERT_TRUE(for_each_trace_record((*files)[1], [&](const TraceRecord& r) {
                    EXPECT_GT(r.line, last_line);
                    last_line = r.line;
                    if (r.header_json.rfind("{\"compilation_metrics\"", 0) == 0 && !r.payload.empty())
                        ++metrics_with_payload;
                    ++records;
                    return true;
                }).ok());
    EXPECT_GT(records, 800u);
    EXPECT_EQ(metrics_with_payload, 0u);  // compilation_metrics carry their data in the header
    std::size_t seen = 0;
    ASSERT_TRUE(for_each_trace_record((*files)[1], [&](const TraceRecord&) { return ++seen < 3; }).ok());
    EXPECT_EQ(seen, 3u);
}

}  // namespace
