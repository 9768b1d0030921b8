#pragma once
// Where a process's compile time went and what would remove it (issue 32): per process of TORCH_TRACE
// logs, each compile's wall time split into phases (self time of torch's chromium_event spans, no
// double counting), each costly phase with its cause and fix (a graph recompiled and why, Triton
// kernels compiled on a warm start, autotuning that ran, coordinate descent re-run, C++ compiles,
// the vector-ISA probe of a CPU graph), what is left unexplained, and the avoidable seconds summed
// by cause: "this process spent S s compiling; A s would go with X, B s with Y".
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/opened_root.hpp"
#include "startup/compile_spans.hpp"
#include "util/result.hpp"

namespace kiln::startup {

struct PhaseCost {
    std::string name;
    double seconds = 0;
    std::string cause;      // what ran and why, as far as the trace says: why + " (" + about + ")"
    std::string fix;        // what would remove it ("" when nothing would)
    std::string why;        // the avoidable cause that claimed it ("" when none did)
    std::string about;      // what the phase is
    bool inferred = false;  // the cause that claimed it is inferred, not measured: no span says it ran
    std::string basis;      // for an inferred cause: what it was inferred from
};

struct CompileCost {
    std::string compile_id, kind, function, file;  // kind: "frame" or "backward"
    int line = 0;
    std::string start_time;  // glog time
    double seconds = 0;      // entire_frame_compile_time_s, else the span
    double unexplained_seconds = 0;
    std::vector<PhaseCost> phases;  // largest first
    std::string fx_state;           // "hit", "miss", "bypass", "mixed", "" (no FX graph event)
    std::string miss;               // why the FX graph missed (one line), when it did
    std::string recompile_reason;   // dynamo's, when a guard failed
    std::vector<std::string> gaps;

    std::string label() const;  // "mm (gen.py:94) 0/1", "inner backward 0/0"
    std::string key() const;    // what matches it in another process: kind, frame, compile id
    double phase_seconds(const std::string& name) const;
};

struct AvoidableCost {
    std::string what;
    double seconds = 0;
    std::string fix;
    std::string remedy;  // the fix in a few words (the headline's "would go with ...")
    // Measured: the seconds are spans the remedy removes ("would go with"). Inferred: no span covers
    // them, so only an A/B run says what the remedy removes; `basis` says what they were inferred from.
    bool inferred = false;
    std::string basis;

    // "49.0 s would go with X (what)" or "49.0 s inferred: no span covers these seconds; basis (what)":
    // the CLI's headline and the GUI's list say the same.
    std::string text() const;
};

struct ProcessStartup {
    std::string log, label, pid;
    int rank = -1;  // from a "rank_N" in the log's name, else -1
    double compile_seconds = 0;
    std::vector<AvoidableCost> avoidable;  // largest first
    std::vector<CompileCost> compiles;     // in the order they ran
    std::vector<OutsideSpan> outside;      // tuning at first calls, outside any compile
    std::vector<std::string> gaps;

    // "this process spent S s compiling; A s would go with X, B s with Y" (and the first-call tuning).
    std::string headline() const;
};

struct StartupReport {
    std::string root;                       // the cache root misses were compared with ("" when none)
    std::vector<ProcessStartup> processes;  // in the order they ran
    std::vector<std::string> warnings;      // logs that could not be read, gaps in those that could
};

struct StartupOptions {
    // The cache root a command opened (frontend::open_cache): FX key misses compared with its entries too,
    // read through its descriptor (valid while the caller holds what it opened).
    std::optional<inductor::OpenedRoot> root;
    // Without a root: look for one beside the logs (an `inductor/` or a folder with `fxgraph/` in the logs'
    // folder or up to three above it, as TORCH_TRACE dirs are kept beside their cache).
    bool find_root = true;
};

// Reads logs and directories of logs (recursively). Misses are compared with the root's entries and
// with the FX graph events of the processes that ran before (the same frame). A log that cannot be read
// is a warning; none readable is an error.
Result<StartupReport> analyze_startup(const std::vector<std::filesystem::path>& paths, const StartupOptions& options);

// {"processes": [{"log", "compile_seconds", "headline", "avoidable": [{"what", "seconds", "fix", "remedy",
//   "inferred", "basis", "text"}], "compiles": [{"compile_id", "function", "file", "line", "seconds",
//   "unexplained_seconds", "phases": [{"name", "seconds", "cause", "fix", "inferred", "basis"}]}]}],
//   "warnings": [...]}
nlohmann::ordered_json to_json(const StartupReport& r);

}  // namespace kiln::startup
