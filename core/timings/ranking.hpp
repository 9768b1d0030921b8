#pragma once
// How an op's choices rank, for readers who want the answer first: the winner, the runner-up and
// the margin between them, and a choice's parameters in the order a kernel engineer reads them
// (tile sizes, warps, stages, then the rest as the source gave them). Used by the Autotune table.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "timings/timing_model.hpp"

namespace kiln::timings {

struct Ranking {
    const Choice* best = nullptr;  // op.best (the fastest time), null when no choice has one
    const Choice* next = nullptr;  // the fastest of the others with a time
    // How much slower the runner-up is, in percent ((next / best - 1) x 100); only for positive times.
    std::optional<double> margin_pct;
};
Ranking rank_choices(const Op& op);

// Where a parameter goes: 0.. for the known ones (BLOCK_M, BLOCK_N, BLOCK_K, the pointwise and
// reduction blocks, num_warps, num_stages, GROUP_M), a large number for every other.
int param_importance(std::string_view name);
// The keys of `params` most important first; ties keep the source's order.
std::vector<std::string> params_by_importance(const nlohmann::ordered_json& params);
// params_text in that order ("BLOCK_M=64, BLOCK_N=32, ..., num_warps=4, num_stages=3, EVEN_K=True").
std::string params_text_by_importance(const nlohmann::ordered_json& params);

}  // namespace kiln::timings
