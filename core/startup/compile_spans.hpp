#pragma once
// One TORCH_TRACE log read as compiles and their spans (torch's chromium_event records, `ph` B/E,
// `ts` in microseconds): each compile is an `entire_frame_compile` span (a frame) or an
// `entire_backward_compile` span (a backward compiled at its first call), its seconds those of
// `compilation_metrics` (entire_frame_compile_time_s) or else of the span, and every span nested
// in it adds its self time to a phase (phase_names.hpp). What the causes need is kept beside:
// the compile's cache events, autotuning runs, C++ compiles, recompile reason. Spans outside any
// compile (a kernel's autotuning at its first call) are kept apart. A broken trace still reads:
// an end without a begin, a begin never ended (closed at its parent's end or the log's last
// timestamp) and a torn last record are named in `gaps`, never fatal. So are numbers no trace
// holds, dropped so that every time read is finite and not negative: a timestamp outside 0 to 1e17 us
// (the event ignored), a span that ends before it begins or lasts over 116 days (its time dropped), a
// span whose children outlast it (its own time 0), a negative or absurd compilation_metrics time.
// Not trace/compile_timeline (compiles cut at dynamo_start, their cache events): spans nest here, for phase times.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_log.hpp"
#include "util/result.hpp"

namespace kiln::startup {

// A select_algorithm autotuning (`<op>_template_autotuning` span and its precompile span).
struct AutotuneRun {
    std::string op;     // "mm"
    std::string shape;  // "1024x2048, 2048x256" (hinted when torch gives it)
    std::string dtypes;
    int choices = 0;            // autotune_choices_stats num_choices (0: not logged)
    int triton_choices = 0;     // num_triton_choices
    int precompile_errors = 0;  // exceptions listed by the precompile span
    std::string best;           // best_kernel
    double autotune_seconds = 0, precompile_seconds = 0;
};

// A span run outside any compile (first-call Triton autotuning, coordinate descent).
struct OutsideSpan {
    std::string name, kernel, phase;
    double seconds = 0;
};

struct CompileSpans {
    std::string kind = "frame";  // "frame" or "backward"
    std::string compile_id;
    std::string function, file;
    int line = 0;
    std::string start_time;  // glog time of the first record
    double begin_us = 0, end_us = 0;
    std::optional<double> metrics_seconds;   // compilation_metrics entire_frame_compile_time_s
    bool metrics_dropped = false;            // it was negative or absurd: named in `gaps`
    std::map<std::string, double> phases;    // phase -> self seconds
    std::map<std::string, int> span_counts;  // span name -> how many began
    std::vector<AutotuneRun> autotunes;
    std::vector<std::string> coordesc_kernels;  // kernel_name of coordinate descent spans
    std::vector<trace::CacheEvent> events;      // FX graph and AOTAutograd cache events inside it
    std::string recompile_reason;               // compilation_metrics recompile_reason (a dynamo guard failed)
    std::optional<std::int64_t> triton_compile_us;
    int prefix_header_preprocesses = 0;  // compile_file spans that were the prefix header's (phase_names.hpp)
    std::vector<std::string> gaps;       // what the trace lacked for this compile

    double seconds() const { return metrics_seconds.value_or((end_us - begin_us) / 1e6); }
    bool cpu_graph() const { return span_counts.count("compile_file") > 0; }
};

struct ProcessSpans {
    std::string log;
    std::int64_t pid = 0;
    std::string first_time;  // glog time of the first record: processes sort by it
    std::vector<CompileSpans> compiles;
    std::vector<OutsideSpan> outside;
    std::vector<std::string> gaps;  // log-level: torn records, unknown record kinds
};

// Reads one log in one pass. Errors only when the file cannot be read or is not a TORCH_TRACE log.
// With `on_compile`, each compile is handed over as soon as it is complete (when the next one begins,
// or at the log's end) and `compiles` stays empty: memory holds one compile, not the log's all.
Result<ProcessSpans> read_process_spans(const std::filesystem::path& log,
                                        const std::function<void(CompileSpans&&)>& on_compile = {});

}  // namespace kiln::startup
