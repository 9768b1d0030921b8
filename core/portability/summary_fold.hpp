#pragma once
// The portability summary folded item by item, in the report's order: `summarize` (over a full
// report's items) and `summarize_scan` (over items assessed a chunk at a time, never all kept) share it,
// so the Overview's summary-only pass says exactly what `kiln-cli portable` says.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "portability/portable.hpp"

namespace kiln::portability {

class SummaryFold {
public:
    void add(const PortableItem& item);  // in the report's order (kind, then path)
    PortableSummary finish(const std::string& target_label, const std::vector<std::string>& pgo_profiles);

private:
    using Tallies = std::map<std::string, ComponentTally>;
    // A best_config's or Triton dir's line names the first item that is no hit: with a difference
    // (when any miss) or with an unknown component (when none).
    struct FirstNotHit {
        std::optional<Difference> differs;
        std::optional<UnknownComponent> unknown;
    };
    PortableSummary s_;
    Tallies diff_, unk_, haz_;                     // over graph entries of both kinds
    std::array<Tallies, 2> kind_diff_, kind_unk_;  // per graph kind (fx_graph, aot_autograd)
    std::vector<std::string> timing_others_;       // timing caches of other devices (or system hashes)
    std::array<FirstNotHit, 2> first_;             // best_config, triton_kernel
};

}  // namespace kiln::portability
