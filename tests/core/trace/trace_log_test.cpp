// TORCH_TRACE reading (§10) on the fixture's cold, warm and changed logs.
#include <gtest/gtest.h>

#include <fstream>

#include "test_support.hpp"
#include "trace/trace_log.hpp"

namespace {

using namespace kiln::trace;

std::filesystem::path trace_dir(const char* run) { return kiln::test::fixture_dir() / "h100" / "trace" / run; }

// One fx_graph_cache_miss record: its header line, then its payload line (`rest` goes after the key).
std::string miss(const std::string& key, const std::string& rest = "\"cache_state\": \"miss\"}") {
    return "V1126 01:17:33.288000 1311 torch/_inductor/compile_fx.py:1120] {\"artifact\": {\"name\": "
           "\"fx_graph_cache_miss\", \"encoding\": \"json\"}, \"frame_id\": 0}\n\t{\"key\": \"" +
           key + "\", " + rest + "\n";
}

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

    // A cache event whose payload is broken inside a log is an error naming the line.
    auto cut = dir.path() / "cut.log";
    std::ofstream(cut) << miss("fabc", "\"compo") << miss("fdef");
    auto r = read_trace_log(cut);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().context, cut.string() + ":1");
}

// A log cut off inside its last cache event (still being written, or truncated) made every reader fail.
// The events before it stand, and the cut-off tail is named as a gap.
TEST(TraceLog, CutOffTailIsAGapAndTheRestIsRead) {
    kiln::test::ScratchDir dir("trace_tail");
    auto cut = dir.path() / "cut.log";
    std::ofstream(cut) << miss("fabc") << miss("fdef") << miss("fghi", "\"compo");
    std::vector<TraceGap> gaps;
    auto r = read_trace_log(cut, &gaps);
    ASSERT_TRUE(r.ok()) << r.error().str();
    ASSERT_EQ(r->size(), 2u);
    EXPECT_EQ((*r)[1].key, "fdef");
    ASSERT_EQ(gaps.size(), 1u);
    EXPECT_EQ(gaps[0].first_line, 5u);
    EXPECT_NE(gaps[0].str().find("cut.log:5-6: the log ends inside cache event fx_graph_cache_miss"), std::string::npos)
        << gaps[0].str();
    // A header with no payload line at all ends a log the same way.
    std::ofstream(dir.path() / "bare.log") << miss("fabc") << miss("fdef").substr(0, miss("fdef").find('\t'));
    auto bare = read_trace_log(dir.path() / "bare.log", &gaps);
    ASSERT_TRUE(bare.ok()) << bare.error().str();
    EXPECT_EQ(bare->size(), 1u);
}

// Invalid UTF-8 in a payload was reported as "without a JSON object payload (the log may be truncated)".
TEST(TraceLog, InvalidUtf8IsNamedWithItsLineAndByte) {
    kiln::test::ScratchDir dir("trace_utf8");
    auto bad = dir.path() / "bad.log";
    std::ofstream(bad) << miss("fabc")
                       << miss(
                              "fd\xff\xfe"
                              "ef, this is long enough")
                       << miss("fghi");
    auto r = read_trace_log(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, kiln::Errc::parse);
    // Line 4 is "\t{\"key\": \"fd\xff...": the tab is byte 1, the 0xff byte 13.
    EXPECT_NE(r.error().message.find("not valid UTF-8 (line 4, byte 13)"), std::string::npos) << r.error().str();
    EXPECT_EQ(r.error().context, bad.string() + ":4");
    EXPECT_EQ(r.error().str().find("truncated"), std::string::npos) << r.error().str();
}

// A record larger than kMaxTraceRecordBytes (a payload line of 64 MB and more, a header line as long) is skipped
// and named; it is never held whole, and the records around it are read.
TEST(TraceLog, HugeRecordsAreSkippedAsGaps) {
    kiln::test::ScratchDir dir("trace_huge");
    auto huge = dir.path() / "huge.log";
    {
        std::ofstream out(huge);
        out << miss("fabc") << miss("f" + std::string((64u << 20) + 4096, 'x')) << miss("fdef");
        out << "V1126 01:17:33.288000 1311 torch/x.py:1] {\"big\": \"" << std::string((64u << 20) + 4096, 'y')
            << "\"}\n"
            << "\tpayload of the huge header\n"
            << miss("fghi");
    }
    std::vector<TraceGap> gaps;
    auto r = read_trace_log(huge, &gaps);
    ASSERT_TRUE(r.ok()) << r.error().str();
    ASSERT_EQ(r->size(), 3u);
    EXPECT_EQ((*r)[0].key, "fabc");
    EXPECT_EQ((*r)[1].key, "fdef");
    EXPECT_EQ((*r)[2].key, "fghi");
    ASSERT_EQ(gaps.size(), 2u);
    EXPECT_EQ(gaps[0].first_line, 3u);
    EXPECT_NE(gaps[0].why.find("larger than 64 MB"), std::string::npos) << gaps[0].str();
    EXPECT_EQ(gaps[1].first_line, 7u);
    EXPECT_EQ(gaps[1].last_line, 8u);
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
