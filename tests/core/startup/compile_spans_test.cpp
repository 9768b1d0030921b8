// Reading compiles and phases from TORCH_TRACE chromium_event records: self time without double
// counting, and logs torch never meant to write (truncated, unknown span names, missing or stray end
// events, torn payloads) still read, with the gap named.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "startup/compile_spans.hpp"
#include "startup/phase_names.hpp"
#include "test_support.hpp"

namespace kiln::startup {
namespace {

namespace fs = std::filesystem;
using kiln::test::ScratchDir;

// One chromium_event record: the glog header and the payload, one tab-prefixed line.
std::string span(const std::string& name, const char* ph, double ts_us, const std::string& args = "") {
    return "V1126 01:16:44.838000 1031 torch/_dynamo/utils.py:2126] {\"chromium_event\": {}, \"frame_id\": 0, "
           "\"frame_compile_id\": 0, \"attempt\": 0, \"has_payload\": \"x\"}\n\t{\"name\": \"" +
           name + "\", \"ts\": " + std::to_string(ts_us) + ", \"args\": {\"compile_id\": \"0/0\"" + args +
           "}, \"ph\": \"" + ph + "\", \"cat\": \"dynamo_timed\", \"tid\": 0, \"pid\": 0}\n";
}

std::string metrics(double seconds) {
    return "V1126 01:16:45.733000 1031 torch/_dynamo/utils.py:1796] {\"compilation_metrics\": {\"compile_id\": "
           "\"0/0\", \"co_name\": \"f\", \"co_filename\": \"/x/model.py\", \"co_firstlineno\": 7, "
           "\"entire_frame_compile_time_s\": " +
           std::to_string(seconds) + "}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n";
}

fs::path write_log(const ScratchDir& dir, const std::string& text) {
    fs::path p = dir.path() / "dedicated_log_torch_trace_test.log";
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

double phase(const CompileSpans& c, const std::string& name) {
    auto it = c.phases.find(name);
    return it == c.phases.end() ? 0.0 : it->second;
}

double sum(const CompileSpans& c) {
    double s = 0;
    for (const auto& [name, v] : c.phases) s += v;
    return s;
}

// A compile of 10 s: tracing 2 s, backend 7 s holding a C++ compile of 3 s and a lowering of 1 s.
std::string good_compile() {
    return span("dynamo", "B", 0) + span("entire_frame_compile", "B", 1e3) + span("bytecode_tracing", "B", 1e6) +
           span("bytecode_tracing", "E", 3e6) + span("backend_compile", "B", 3e6) + span("compile_file", "B", 4e6) +
           span("compile_file", "E", 7e6) + span("GraphLowering.run", "B", 8e6) + span("GraphLowering.run", "E", 9e6) +
           span("backend_compile", "E", 10e6) + span("entire_frame_compile", "E", 10.001e6) + metrics(10.0) +
           span("dynamo", "E", 10.002e6);
}

TEST(StartupSpans, SelfTimeCountsEveryNestedSpanOnce) {
    ScratchDir dir("startup_spans");
    auto p = read_process_spans(write_log(dir, good_compile()));
    ASSERT_TRUE(p.ok()) << p.error().str();
    ASSERT_EQ(p->compiles.size(), 1u);
    const auto& c = p->compiles.front();
    EXPECT_EQ(c.function, "f");
    EXPECT_EQ(c.file, "/x/model.py");
    EXPECT_DOUBLE_EQ(c.seconds(), 10.0);  // compilation_metrics, not the span
    EXPECT_DOUBLE_EQ(phase(c, "dynamo tracing"), 2.0);
    EXPECT_DOUBLE_EQ(phase(c, "C++ compile"), 3.0);
    EXPECT_DOUBLE_EQ(phase(c, "Inductor lowering and codegen"), 1.0);
    EXPECT_DOUBLE_EQ(phase(c, "AOTAutograd"), 3.0);  // backend_compile's own 7 s less its children's 4 s
    EXPECT_NEAR(sum(c), 9.0, 1e-9);                  // the root's own second is nobody's
    EXPECT_TRUE(c.cpu_graph());
    EXPECT_TRUE(c.gaps.empty());
    EXPECT_TRUE(p->gaps.empty());
}

// Torch 2.11 preprocesses its C++ prefix header just before a CPU graph's first async_compile.wait, in
// every process, libraries kept or not: that compile_file is not a library's compile.
std::string cpu_graph_load(double header_end_us) {
    return span("dynamo", "B", 0) + span("entire_frame_compile", "B", 1e3) +
           span("PyCodeCache.load_by_key_path", "B", 1e6) + span("compile_file", "B", 2e6) +
           span("compile_file", "E", 3e6) + span("compile_file", "B", header_end_us - 0.25e6) +
           span("compile_file", "E", header_end_us) + span("async_compile.wait", "B", 6e6) +
           span("compile_file", "B", 6.1e6) + span("compile_file", "E", 6.6e6) + span("async_compile.wait", "E", 7e6) +
           span("PyCodeCache.load_by_key_path", "E", 8e6) + span("entire_frame_compile", "E", 9e6) + metrics(9.0) +
           span("dynamo", "E", 9.001e6);
}

TEST(StartupSpans, ThePrefixHeadersPreprocessIsNotALibrarysCompile) {
    ScratchDir dir("startup_spans");
    auto p = read_process_spans(write_log(dir, cpu_graph_load(5.98e6)));  // ends 20 ms before the wait
    ASSERT_TRUE(p.ok()) << p.error().str();
    const auto& c = p->compiles.front();
    EXPECT_NEAR(phase(c, kPrefixHeaderPhase), 0.25, 1e-9);
    EXPECT_NEAR(phase(c, "C++ compile"), 1.5, 1e-9);  // the one before, and the one inside the wait
    EXPECT_EQ(c.prefix_header_preprocesses, 1);
    EXPECT_TRUE(c.cpu_graph());

    // Far from the wait (a library compiled, then other work): every compile_file is a library's.
    auto q = read_process_spans(write_log(dir, cpu_graph_load(5.0e6)));
    ASSERT_TRUE(q.ok()) << q.error().str();
    EXPECT_EQ(phase(q->compiles.front(), kPrefixHeaderPhase), 0.0);
    EXPECT_NEAR(phase(q->compiles.front(), "C++ compile"), 1.75, 1e-9);
    EXPECT_EQ(q->compiles.front().prefix_header_preprocesses, 0);

    // Seconds long there: the precompiled header was built, a compile like a library's.
    std::string built = cpu_graph_load(5.98e6);
    const std::string begin = span("compile_file", "B", 5.73e6);
    built.replace(built.find(begin), begin.size(), span("compile_file", "B", 3.5e6));
    auto b = read_process_spans(write_log(dir, built));
    ASSERT_TRUE(b.ok()) << b.error().str();
    EXPECT_EQ(phase(b->compiles.front(), kPrefixHeaderPhase), 0.0);
    EXPECT_NEAR(phase(b->compiles.front(), "C++ compile"), 1.0 + 2.48 + 0.5, 1e-9);
}

TEST(StartupSpans, UnknownSpanNamesStayPhasesOfTheirOwn) {
    ScratchDir dir("startup_spans");
    std::string text = good_compile();
    for (std::size_t at; (at = text.find("\"GraphLowering.run\"")) != std::string::npos;)
        text.replace(at, 19, "\"lower_graph_v9\"");
    auto p = read_process_spans(write_log(dir, text));
    ASSERT_TRUE(p.ok()) << p.error().str();
    const auto& c = p->compiles.front();
    EXPECT_EQ(phase(c, "Inductor lowering and codegen"), 0.0);
    EXPECT_DOUBLE_EQ(phase(c, "other: lower_graph_v9"), 1.0);
    EXPECT_NEAR(sum(c), 9.0, 1e-9);
    EXPECT_FALSE(is_known_phase("other: lower_graph_v9"));
}

TEST(StartupSpans, AMissingEndIsClosedByItsParentAndNamed) {
    ScratchDir dir("startup_spans");
    std::string text = good_compile();
    const std::string end = span("compile_file", "E", 7e6);
    text.erase(text.find(end), end.size());
    auto p = read_process_spans(write_log(dir, text));
    ASSERT_TRUE(p.ok()) << p.error().str();
    const auto& c = p->compiles.front();
    // compile_file ran on until backend_compile ended, its lowering child inside it.
    EXPECT_DOUBLE_EQ(phase(c, "C++ compile"), 5.0);
    EXPECT_DOUBLE_EQ(phase(c, "Inductor lowering and codegen"), 1.0);
    EXPECT_NEAR(sum(c), 9.0, 1e-9);
    ASSERT_EQ(c.gaps.size(), 1u);
    EXPECT_NE(c.gaps.front().find("compile_file has no end event"), std::string::npos) << c.gaps.front();
}

TEST(StartupSpans, AStrayEndIsNamedAndIgnored) {
    ScratchDir dir("startup_spans");
    std::string text = good_compile();
    text.insert(text.find(span("backend_compile", "E", 10e6)), span("async_compile.wait", "E", 9.5e6));
    auto p = read_process_spans(write_log(dir, text));
    ASSERT_TRUE(p.ok()) << p.error().str();
    const auto& c = p->compiles.front();
    EXPECT_NEAR(sum(c), 9.0, 1e-9);
    ASSERT_EQ(c.gaps.size(), 1u);
    EXPECT_NE(c.gaps.front().find("async_compile.wait without its begin"), std::string::npos) << c.gaps.front();
}

TEST(StartupSpans, ATruncatedLogStillAnswersWithTheGapNamed) {
    ScratchDir dir("startup_spans");
    std::string text = good_compile();
    // Cut inside compile_file's end record: the payload is torn, nothing after it was written.
    const std::string end = span("compile_file", "E", 7e6);
    text = text.substr(0, text.find(end) + end.size() / 2);
    auto p = read_process_spans(write_log(dir, text));
    ASSERT_TRUE(p.ok()) << p.error().str();
    ASSERT_EQ(p->compiles.size(), 1u);
    const auto& c = p->compiles.front();
    EXPECT_FALSE(c.metrics_seconds);  // never written: the span up to the last timestamp is all there is
    EXPECT_DOUBLE_EQ(c.seconds(), (4e6 - 1e3) / 1e6);
    EXPECT_DOUBLE_EQ(phase(c, "dynamo tracing"), 2.0);
    EXPECT_FALSE(c.gaps.empty());
    bool named = false;
    for (const auto& g : c.gaps) named |= g.find("the log's last timestamp") != std::string::npos;
    EXPECT_TRUE(named);
    ASSERT_FALSE(p->gaps.empty());  // the torn record
    EXPECT_NE(p->gaps.front().find("without a complete payload"), std::string::npos) << p->gaps.front();
}

TEST(StartupSpans, SpansOutsideCompilesAreKeptApart) {
    ScratchDir dir("startup_spans");
    std::string text = good_compile() +
                       span("CachingAutotuner.coordinate_descent_tuning", "B", 11e6, ", \"kernel_name\": \"k0\"") +
                       span("CachingAutotuner.coordinate_descent_tuning", "E", 11.5e6);
    auto p = read_process_spans(write_log(dir, text));
    ASSERT_TRUE(p.ok()) << p.error().str();
    ASSERT_EQ(p->outside.size(), 1u);
    EXPECT_EQ(p->outside.front().kernel, "k0");
    EXPECT_EQ(p->outside.front().phase, "coordinate descent tuning");
    EXPECT_DOUBLE_EQ(p->outside.front().seconds, 0.5);
    EXPECT_NEAR(sum(p->compiles.front()), 9.0, 1e-9);
}

// A hostile frame: its line (and the metrics' co_firstlineno) far beyond an int reads as 0 (converting it
// was undefined behaviour), and the file named by string-table index still resolves.
TEST(StartupSpans, AnOutOfRangeLineReadsAsZero) {
    ScratchDir dir("startup_spans");
    const std::string str =
        "V1126 01:16:44.800000 1031 torch/_logging/structured.py:28] {\"str\": [\"/x/model.py\", 3]}\n";
    const std::string start =
        "V1126 01:16:44.838000 1031 torch/_dynamo/convert_frame.py:1000] {\"dynamo_start\": {\"stack\": [{\"line\": "
        "1e30, \"name\": \"f\", \"filename\": 3}]}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n";
    std::string text = good_compile();
    text.insert(text.find(span("bytecode_tracing", "B", 1e6)), start);
    text.insert(0, str);
    auto p = read_process_spans(write_log(dir, text));
    ASSERT_TRUE(p.ok()) << p.error().str();
    ASSERT_EQ(p->compiles.size(), 1u);
    const auto& c = p->compiles.front();
    EXPECT_EQ(c.function, "f");
    EXPECT_EQ(c.file, "/x/model.py");
    EXPECT_EQ(c.line, 0);
}

// A complete event (`ph` X): its duration given, no end record.
std::string complete_span(const std::string& name, double ts_us, double dur_us) {
    return "V1126 01:16:44.838000 1031 torch/_dynamo/utils.py:2126] {\"chromium_event\": {}, \"frame_id\": 0, "
           "\"frame_compile_id\": 0, \"attempt\": 0, \"has_payload\": \"x\"}\n\t{\"name\": \"" +
           name + "\", \"ts\": " + std::to_string(ts_us) + ", \"dur\": " + std::to_string(dur_us) +
           ", \"args\": {}, \"ph\": \"X\", \"cat\": \"dynamo_timed\", \"tid\": 0, \"pid\": 0}\n";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

bool any_gap(const std::vector<std::string>& gaps, const std::string& what) {
    for (const auto& g : gaps)
        if (g.find(what) != std::string::npos) return true;
    return false;
}

// Every time read is a number a report can print: finite, not negative, below the bounds.
void expect_sane_times(const CompileSpans& c) {
    EXPECT_TRUE(std::isfinite(c.seconds()) && c.seconds() >= 0 && c.seconds() < 1e7) << c.seconds();
    for (const auto& [name, v] : c.phases) EXPECT_TRUE(std::isfinite(v) && v >= 0 && v < 1e7) << name << " " << v;
    for (const auto& a : c.autotunes) EXPECT_TRUE(a.autotune_seconds >= 0 && a.autotune_seconds < 1e7);
}

// Issue 42, item 13: a span that ends before it begins no longer subtracts from its parent (a phase of
// -7 s): it is dropped, its parent keeps the time as its own, and the gap names it.
TEST(StartupSpans, ASpanEndingBeforeItBeginsIsDroppedAndNamed) {
    ScratchDir dir("startup_spans");
    std::string text =
        replaced(good_compile(), span("GraphLowering.run", "E", 9e6), span("GraphLowering.run", "E", 1e6));
    auto p = read_process_spans(write_log(dir, text));
    ASSERT_TRUE(p.ok()) << p.error().str();
    ASSERT_EQ(p->compiles.size(), 1u);
    const auto& c = p->compiles.front();
    expect_sane_times(c);
    EXPECT_DOUBLE_EQ(phase(c, "Inductor lowering and codegen"), 0.0);
    EXPECT_DOUBLE_EQ(phase(c, "AOTAutograd"), 4.0);  // backend_compile's 7 s less compile_file's 3 s
    EXPECT_NEAR(sum(c), 9.0, 1e-9);
    EXPECT_TRUE(any_gap(c.gaps, "GraphLowering.run ends 7e+06 us before it begins"))
        << ::testing::PrintToString(c.gaps);
    {  // A dropped span's children keep their time, which its parent's own time then excludes.
        const std::string nested = span("entire_frame_compile", "B", 0) + span("backend_compile", "B", 1e6) +
                                   span("compile_file", "B", 4e6) + span("GraphLowering.run", "B", 5e6) +
                                   span("GraphLowering.run", "E", 6e6) + span("compile_file", "E", 3e6) +
                                   span("backend_compile", "E", 9e6) + span("entire_frame_compile", "E", 10e6);
        auto q = read_process_spans(write_log(dir, nested));
        ASSERT_TRUE(q.ok()) << q.error().str();
        expect_sane_times(q->compiles.front());
        EXPECT_DOUBLE_EQ(phase(q->compiles.front(), "C++ compile"), 0.0);
        EXPECT_DOUBLE_EQ(phase(q->compiles.front(), "Inductor lowering and codegen"), 1.0);
        EXPECT_DOUBLE_EQ(phase(q->compiles.front(), "AOTAutograd"), 7.0);
        EXPECT_NEAR(sum(q->compiles.front()), 8.0, 1e-9);  // backend_compile's 8 s, the lowering counted once
    }
    // The compile's own span backwards: its time is dropped (the metrics still give the seconds).
    text = replaced(good_compile(), span("entire_frame_compile", "E", 10.001e6), span("entire_frame_compile", "E", 0));
    p = read_process_spans(write_log(dir, replaced(text, metrics(10.0), "")));
    ASSERT_TRUE(p.ok()) << p.error().str();
    ASSERT_EQ(p->compiles.size(), 1u);
    expect_sane_times(p->compiles.front());
    EXPECT_DOUBLE_EQ(p->compiles.front().seconds(), 0.0);
    EXPECT_TRUE(any_gap(p->compiles.front().gaps, "entire_frame_compile ends"))
        << ::testing::PrintToString(p->compiles.front().gaps);
}

// Timestamps of 1e308 (and below zero) are no time a trace was written: the event is ignored and named,
// never summed into 1e302 s or an infinite phase.
TEST(StartupSpans, AbsurdTimestampsAreIgnoredAndNamed) {
    ScratchDir dir("startup_spans");
    std::string text = good_compile();
    text.insert(text.find(span("compile_file", "E", 7e6)),
                span("compile_file", "E", 1e308) + span("GraphLowering.run", "B", -1e308));
    text = replaced(text, span("entire_frame_compile", "E", 10.001e6), span("entire_frame_compile", "E", 1e308));
    text = replaced(text, metrics(10.0), "");
    auto p = read_process_spans(write_log(dir, text + span("dynamo", "B", -1e308) + span("dynamo", "E", 1e308)));
    ASSERT_TRUE(p.ok()) << p.error().str();
    ASSERT_EQ(p->compiles.size(), 1u);
    const auto& c = p->compiles.front();
    expect_sane_times(c);
    EXPECT_DOUBLE_EQ(phase(c, "C++ compile"), 3.0);  // closed by its real end
    EXPECT_TRUE(any_gap(c.gaps, "compile_file at timestamp 1e+308 us")) << ::testing::PrintToString(c.gaps);
    EXPECT_TRUE(any_gap(c.gaps, "GraphLowering.run at timestamp -1e+308 us")) << ::testing::PrintToString(c.gaps);
    EXPECT_TRUE(any_gap(p->gaps, "dynamo at timestamp")) << ::testing::PrintToString(p->gaps);
}

// compilation_metrics of -5 s (or 1e308 s) printed "spent -5000 ms compiling": the metric is dropped
// and named, the compile's span gives its seconds.
TEST(StartupSpans, ANegativeOrAbsurdMetricIsDroppedForTheSpan) {
    ScratchDir dir("startup_spans");
    for (double bad : {-5.0, 1e308}) {
        auto p = read_process_spans(write_log(dir, replaced(good_compile(), metrics(10.0), metrics(bad))));
        ASSERT_TRUE(p.ok()) << p.error().str();
        ASSERT_EQ(p->compiles.size(), 1u);
        const auto& c = p->compiles.front();
        expect_sane_times(c);
        EXPECT_FALSE(c.metrics_seconds);
        EXPECT_TRUE(c.metrics_dropped);
        EXPECT_NEAR(c.seconds(), 10.0, 1e-9);  // the span: 1e3 to 10.001e6 us
        EXPECT_TRUE(any_gap(c.gaps, "entire_frame_compile_time_s of " + std::string(bad < 0 ? "-5" : "1e+308")))
            << ::testing::PrintToString(c.gaps);
    }
}

// A complete event of negative (or absurd) duration is dropped; one longer than the span around it
// (out of order) leaves that span a self time of 0, not a negative phase.
TEST(StartupSpans, CompleteEventsOfImpossibleLengthLeaveNoNegativePhase) {
    ScratchDir dir("startup_spans");
    std::string text = good_compile();
    text.insert(text.find(span("GraphLowering.run", "B", 8e6)),
                complete_span("async_compile.wait", 7.5e6, -5e6) + complete_span("CUDAGraphNode.record", 7.5e6, 1e300));
    auto p = read_process_spans(write_log(dir, text));
    ASSERT_TRUE(p.ok()) << p.error().str();
    expect_sane_times(p->compiles.front());
    EXPECT_NEAR(sum(p->compiles.front()), 9.0, 1e-9);
    EXPECT_TRUE(any_gap(p->compiles.front().gaps, "async_compile.wait lasting -5e+06 us"))
        << ::testing::PrintToString(p->compiles.front().gaps);

    text = good_compile();
    text.insert(text.find(span("GraphLowering.run", "B", 8e6)), complete_span("async_compile.wait", 7.5e6, 20e6));
    p = read_process_spans(write_log(dir, text));
    ASSERT_TRUE(p.ok()) << p.error().str();
    const auto& c = p->compiles.front();
    expect_sane_times(c);
    EXPECT_DOUBLE_EQ(phase(c, "AOTAutograd"), 0.0);
    EXPECT_TRUE(any_gap(c.gaps, "backend_compile's children last")) << ::testing::PrintToString(c.gaps);
}

TEST(StartupSpans, PhaseTableNamesTorchsSpans) {
    EXPECT_EQ(phase_of_span("async_compile.precompile"), "Triton compile");
    EXPECT_EQ(phase_of_span("compile_file"), "C++ compile");
    EXPECT_EQ(phase_of_span("mm_template_autotuning"), "autotuning: GEMM templates");
    EXPECT_EQ(phase_of_span("compile_attempt_1"), "dynamo tracing");
    EXPECT_EQ(phase_of_span("pass.post_grad_passes.stable_sort"), "FX graph passes");
    EXPECT_EQ(phase_of_span("CUDAGraphNode.record"), "cudagraph recording");
    EXPECT_EQ(phase_of_span("brand_new_span"), "other: brand_new_span");
}

}  // namespace
}  // namespace kiln::startup
