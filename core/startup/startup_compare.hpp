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
};

struct ProcessComparison {
    std::string before, after;  // the processes' labels
    double before_seconds = 0, after_seconds = 0;
    std::vector<CompileDelta> compiles;
};

ProcessComparison compare_processes(const ProcessStartup& before, const ProcessStartup& after);

struct RankDifference {
    std::string compile;
    std::vector<std::string> hit, missed, absent;  // rank names ("rank 3", else the process label)
    std::vector<std::string> why;                  // per missed rank: "rank 3: FX graph key miss: ..."
    std::string summary;                           // "rank 3 missed the graph ranks 0-2 hit: ..."
};

std::vector<RankDifference> compare_ranks(const std::vector<ProcessStartup>& ranks);

nlohmann::ordered_json to_json(const ProcessComparison& c);
nlohmann::ordered_json to_json(const std::vector<RankDifference>& d);

}  // namespace kiln::startup
