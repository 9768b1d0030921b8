#include "timings/compare.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

#include "timings/choice_name.hpp"
#include "timings/join_sources.hpp"

namespace kiln::timings {

std::string choice_identity(const Choice& c) {
    if (c.params->empty() && c.name.rfind("triton", 0) == 0 && c.name.find('-') != std::string::npos) return c.name;
    std::string stem = c.name.substr(0, c.name.find('-'));
    // "triton_mm_4" (stderr) and "triton_mm" (cache) are the same family.
    auto us = stem.rfind('_');
    if (us != std::string::npos && us + 1 < stem.size() &&
        std::all_of(stem.begin() + static_cast<long>(us) + 1, stem.end(),
                    [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
        stem.resize(us);
    if (c.params->empty()) return stem;
    return stem + "(" + params_text(c.params) + ")";
}

namespace {

std::string problem_key(const Op& op) {
    std::string k = op.op + "|" + op.precision + "|";
    for (const auto& s : op.sizes) k += s + ",";
    if (op.sizes.empty()) k += op.inputs;
    // The same sizes in another layout are another autotuning; row-major strides need not be known.
    if (!contiguous_inputs(op))
        for (const auto& s : op.strides) k += "@" + s;
    return k;
}

const ComparedChoice* find_identity(const ComparedOp& row, const std::string& id) {
    for (const auto& c : row.choices)
        if (c.identity == id) return &c;
    return nullptr;
}

// Devices number a template's choices apart (`triton_mm_4` on one, `triton_mm_61` on the other):
// the family and the config name the choice on both.
std::string family_label(const Choice& c) {
    const ChoiceName n = choice_name(c);
    const std::string family = choice_kind(c.name).family;
    const std::string stem = family.empty() ? n.short_name : family;
    return n.config.empty() ? stem : stem + " (" + n.config + ")";
}

void judge_noise(ComparedOp& row, const std::vector<std::string>& labels) {
    if (!row.winner_differs) return;
    bool any_known = false, any_beyond = false;
    double worst = -1;
    for (size_t i = 0; i < row.best.size(); ++i) {
        const ComparedChoice* mine = row.best[i].empty() ? nullptr : find_identity(row, row.best[i]);
        if (!mine || !mine->ms[i] || !mine->spread_ms[i]) continue;
        for (size_t j = 0; j < row.best.size(); ++j) {
            if (j == i || row.best[j].empty() || row.best[j] == row.best[i]) continue;
            const ComparedChoice* theirs = find_identity(row, row.best[j]);
            if (!theirs || !theirs->ms[i] || !theirs->spread_ms[i]) continue;
            any_known = true;
            double gap = *theirs->ms[i] - *mine->ms[i];
            double noise = *mine->spread_ms[i] + *theirs->spread_ms[i];
            if (gap > noise) any_beyond = true;
            if (gap - noise > worst) {
                worst = gap - noise;
                row.noise_note = "on " + labels[i] + ": " + theirs->label + " is " + ms_text(gap) + " slower, noise " +
                                 ms_text(noise);
            }
        }
    }
    row.noise = !any_known ? NoiseVerdict::noise_unknown
                           : (any_beyond ? NoiseVerdict::beyond_noise : NoiseVerdict::within_noise);
    if (!any_known) row.noise_note = "no source measured both winners with their spread";
}

}  // namespace

const char* noise_verdict_name(NoiseVerdict v) {
    switch (v) {
        case NoiseVerdict::same_winner: return "same winner";
        case NoiseVerdict::within_noise: return "within noise";
        case NoiseVerdict::beyond_noise: return "beyond noise";
        case NoiseVerdict::noise_unknown: return "noise unknown";
    }
    return "?";
}

Comparison compare_devices(const std::vector<DeviceTimings>& devices) {
    Comparison cmp;
    const size_t n = devices.size();
    for (const auto& d : devices) cmp.devices.push_back(d.label);
    // problem key -> per device op (first one wins: a later duplicate is the same tuning rerun)
    std::map<std::string, std::vector<const Op*>> by_problem;
    std::vector<std::string> order;
    for (size_t i = 0; i < n; ++i) {
        for (const auto& op : devices[i].set.ops) {
            if (op.op == "best_config") continue;  // no times to compare
            auto key = problem_key(op);
            auto [it, fresh] = by_problem.emplace(key, std::vector<const Op*>(n, nullptr));
            if (fresh) order.push_back(key);
            if (!it->second[i]) it->second[i] = &op;
        }
    }
    for (const auto& key : order) {
        const auto& per_device = by_problem[key];
        if (std::count_if(per_device.begin(), per_device.end(), [](const Op* o) { return o != nullptr; }) < 2) continue;
        ComparedOp row;
        const Op* first = *std::find_if(per_device.begin(), per_device.end(), [](const Op* o) { return o != nullptr; });
        row.op = first->op;
        row.inputs = first->inputs;
        row.precision = first->precision;
        std::map<std::string, size_t> choice_index;
        for (size_t i = 0; i < n; ++i) {
            const Op* op = per_device[i];
            row.best.push_back({});
            row.best_ms.push_back(std::nullopt);
            if (!op) continue;
            for (const auto& c : op->choices) {
                auto id = choice_identity(c);
                auto [it, fresh] = choice_index.emplace(id, row.choices.size());
                if (fresh)
                    row.choices.push_back({id, choice_display_name(c), std::vector<std::optional<double>>(n),
                                           std::vector<std::string>(n), std::vector<std::optional<double>>(n)});
                auto& cc = row.choices[it->second];
                if (!fresh && cc.label != choice_display_name(c)) cc.label = family_label(c);
                if (cc.names[i].empty()) {
                    cc.names[i] = c.name;
                    cc.ms[i] = c.ms;
                    cc.spread_ms[i] = c.spread_ms;
                }
                if (c.name == op->best) row.best[i] = id;
            }
            row.best_ms[i] = best_ms(*op);
        }
        std::string winner;
        for (size_t i = 0; i < n; ++i) {
            auto base = row.best_ms[0];
            auto mine = row.best_ms[i];
            row.speedup.push_back(base && mine && *mine > 0 ? std::optional<double>(*base / *mine) : std::nullopt);
            if (row.best[i].empty()) continue;
            if (winner.empty()) winner = row.best[i];
            else if (winner != row.best[i]) row.winner_differs = true;
        }
        judge_noise(row, cmp.devices);
        // Fastest first on the first device that has the op; missing times last.
        size_t ref = static_cast<size_t>(std::find(per_device.begin(), per_device.end(), first) - per_device.begin());
        std::stable_sort(row.choices.begin(), row.choices.end(),
                         [ref](const ComparedChoice& a, const ComparedChoice& b) {
                             double x = a.ms[ref].value_or(INFINITY), y = b.ms[ref].value_or(INFINITY);
                             return x < y;
                         });
        cmp.ops.push_back(std::move(row));
    }
    return cmp;
}

std::string winner_label(const ComparedOp& op, std::size_t d) {
    if (d >= op.best.size() || op.best[d].empty()) return {};
    const ComparedChoice* c = find_identity(op, op.best[d]);
    return c ? c->label : op.best[d];
}

void share_params_by_name(std::vector<DeviceTimings>& devices) {
    std::map<std::string, nlohmann::ordered_json> known;
    for (const auto& d : devices)
        for (const auto& op : d.set.ops)
            for (const auto& c : op.choices)
                if (!c.params->empty()) known.emplace(c.name, c.params);
    for (auto& d : devices)
        for (auto& op : d.set.ops)
            for (auto& c : op.choices)
                if (c.params->empty())
                    if (auto it = known.find(c.name); it != known.end()) c.params = it->second;
}

std::vector<DeviceTimings> split_by_device(const TimingSet& set) {
    std::vector<DeviceTimings> out;
    for (const auto& op : set.ops) {
        if (op.device.empty()) continue;
        auto it = std::find_if(out.begin(), out.end(), [&](const DeviceTimings& d) { return d.label == op.device; });
        if (it == out.end()) {
            out.push_back({op.device, {}});
            it = out.end() - 1;
        }
        it->set.ops.push_back(op);
    }
    return out;
}

}  // namespace kiln::timings
