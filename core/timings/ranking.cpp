#include "timings/ranking.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace kiln::timings {

Ranking rank_choices(const Op& op) {
    Ranking r;
    r.best = find_choice(op, op.best);
    if (!r.best || !r.best->ms) return r;
    for (const auto& c : op.choices) {
        if (&c == r.best || !valid_time(c.ms)) continue;  // a negative or NaN time is no runner-up
        if (!r.next || *c.ms < *r.next->ms) r.next = &c;
    }
    // From the ratio torch reports (unrounded), not from two 4-decimal times.
    if (r.next && *r.best->ms > 0)
        if (auto pct = percent_of_best(op, *r.next); pct && *pct > 0) r.margin_pct = (100.0 / *pct - 1.0) * 100.0;
    return r;
}

int param_importance(std::string_view name) {
    // Tile sizes decide most of a kernel's speed; warps and stages next (triton's Config fields).
    static constexpr std::array<std::string_view, 13> order = {
        "BLOCK_M",  "BLOCK_N", "BLOCK_K",   "XBLOCK",     "YBLOCK",  "ZBLOCK",  "R0_BLOCK",
        "R1_BLOCK", "RBLOCK",  "num_warps", "num_stages", "GROUP_M", "num_ctas"};
    for (size_t i = 0; i < order.size(); ++i)
        if (order[i] == name) return static_cast<int>(i);
    return std::numeric_limits<int>::max();
}

std::vector<std::string> params_by_importance(const nlohmann::ordered_json& params) {
    std::vector<std::string> keys;
    if (!params.is_object()) return keys;
    for (auto it = params.begin(); it != params.end(); ++it) keys.push_back(it.key());
    std::stable_sort(keys.begin(), keys.end(), [](const std::string& a, const std::string& b) {
        return param_importance(a) < param_importance(b);
    });
    return keys;
}

std::string params_text_by_importance(const nlohmann::ordered_json& params) {
    nlohmann::ordered_json ordered = nlohmann::ordered_json::object();
    for (const auto& k : params_by_importance(params)) ordered[k] = params.at(k);
    return params_text(ordered);
}

}  // namespace kiln::timings
