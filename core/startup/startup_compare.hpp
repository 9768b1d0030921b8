#pragma once
// Two processes of one program side by side (warm against cold: which compiles got faster, which did
// not, and why), and the ranks of one job (where they differ in FX graph hit or miss, and why: ranks
// that disagree can hang a collective). Compiles match by kind, frame and compile id, in order.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "startup/startup_report.hpp"

namespace kiln::startup {

struct CompileDelta {
    std::string compile;  // CompileCost::label()
    bool in_before = false, in_after = false;
    double before = 0, after = 0;  // seconds
    std::string verdict;           // "faster", "slower", "unchanged", "only before", "only after"
    std::string why;
    // The phase that moved most and its seconds on each side; `cause` is the later process's cause of
    // it, given only when the phase changed materially (phase_changed): a cause present alike in both
    // runs explains nothing about their difference and is never blamed.
    std::string phase;
    double phase_before = 0, phase_after = 0;
    std::string cause;
};

// A phase's time differs materially between two runs when it moved by more than 0.1 s and by more than
// 20 % of the larger side. Spans of the same work jitter from run to run (the fixtures' two processes
// that hit the same warm cache, pgo p2 and mega, differ by up to 0.26 s in a 1.2 s compile, most of it
// in phases of a few hundred ms), so smaller moves are noise, not a cause.
bool phase_changed(double before, double after);

struct ProcessComparison {
    std::string before, after;  // the processes' labels
    // Compile seconds on both sides (each compile's compilation_metrics time, else its span, summed):
    // the same measure, so their difference is what the later run saved in compiling. The trace holds no
    // process wall time, which also counts imports, data loading and the model running.
    double before_seconds = 0, after_seconds = 0;
    std::vector<CompileDelta> compiles;

    // "cold -> warm: 76.9 s -> 35.2 s of compile seconds (the compiles' spans summed), 41.7 s less; the
    // process wall time is not in the trace"
    std::string summary() const;
};

ProcessComparison compare_processes(const ProcessStartup& before, const ProcessStartup& after);

struct RankDifference {
    std::string compile;
    std::vector<std::string> hit, missed, absent;  // rank names ("rank 3", else the process label)
    std::vector<std::string> why;                  // per missed rank: "rank 3: FX graph key miss: ..."
    std::string summary;                           // "rank 3 missed the graph ranks 0-2 hit: ..."
};

std::vector<RankDifference> compare_ranks(const std::vector<ProcessStartup>& ranks);

// {"before", "after", "measure", "before_seconds", "after_seconds", "saved_seconds", "summary", "compiles":
//   [{"compile", "before_seconds", "after_seconds", "verdict", "why", "phase", "phase_before_seconds",
//   "phase_after_seconds", "cause"}]}
nlohmann::ordered_json to_json(const ProcessComparison& c);
nlohmann::ordered_json to_json(const std::vector<RankDifference>& d);

}  // namespace kiln::startup
