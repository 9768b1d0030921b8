#pragma once
// The cause and fix of each phase of one compile, from what its spans and cache events say, and the
// compile's avoidable seconds ("claims"), each phase claimed by at most one cause.
#include <optional>
#include <string>
#include <vector>

#include "startup/compile_spans.hpp"
#include "startup/startup_report.hpp"

namespace kiln::startup {

// Why the compile's FX graph missed, as `misses` says it: the miss class and, for a key miss, the
// components that differ from the closest cached entry.
struct MissInfo {
    std::string state;  // "miss", "bypass"
    std::string what;   // "FX graph key miss: system_info[device] differs from ... (cached X, now Y)"
    std::string fix;
    std::string avoid;   // the avoidable item's name: "recompiles: the cache was written on another device"
    std::string remedy;  // the fix in a few words, for the headline: "a cache warmed on this device"
};

struct Claim {
    std::string what, fix, remedy;
    double seconds = 0;
    // Inferred: no span covers these seconds (or none says what they were), so the cause is a guess from
    // what else the trace holds; `basis` says on what, and the remedy's saving is not claimed.
    bool inferred = false;
    std::string basis;
};

CompileCost cost_of(const CompileSpans& c, const std::optional<MissInfo>& miss, std::vector<Claim>& claims);

// Claims summed by what they say, largest first.
std::vector<AvoidableCost> sum_claims(const std::vector<Claim>& claims);

// "1.23 s" / "12.3 s" / "45 ms".
std::string seconds_text(double s);

}  // namespace kiln::startup
