// The autotuned ops of a group of ranks, side by side: an op is torch's key (op name, inputs key with
// strides, precision), each rank's winner is its fastest valid choice, and choices are the same
// across ranks when their family and config are (RankChoice::identity).
#include <algorithm>
#include <map>

#include "ranks/ranks_report.hpp"
#include "timings/choice_name.hpp"
#include "timings/py_literal.hpp"

namespace kiln::ranks {
namespace {

std::string op_key(const RankOp& op) { return op.op + "\n" + op.inputs_key + "\n" + op.precision; }

const RankChoice* find_identity(const RankOp& op, const std::string& identity) {
    for (const auto& c : op.choices)
        if (c.identity == identity) return &c;
    return nullptr;
}

}  // namespace

void align_choices(const std::vector<LoadedRank*>& group) {
    if (group.size() < 2) return;
    for (auto& first : group.front()->ops) {
        std::vector<RankOp*> ops{&first};
        for (size_t r = 1; r < group.size(); ++r) {
            auto it = std::find_if(group[r]->ops.begin(), group[r]->ops.end(),
                                   [&](const RankOp& o) { return op_key(o) == op_key(first); });
            if (it == group[r]->ops.end()) break;
            ops.push_back(&*it);
        }
        if (ops.size() != group.size()) continue;
        std::size_t n = first.choices.size();
        for (const auto* op : ops) n = std::min(n, op->choices.size());
        std::size_t aligned = 0;
        while (aligned < n && std::all_of(ops.begin(), ops.end(), [&](const RankOp* op) {
                   return op->choices[aligned].family == first.choices[aligned].family;
               }))
            ++aligned;
        std::vector<const RankChoice*> known(aligned, nullptr);
        bool conflict = false;
        for (size_t k = 0; k < aligned && !conflict; ++k)
            for (const auto* op : ops) {
                const RankChoice& c = op->choices[k];
                if (c.params.empty()) continue;
                if (!known[k]) known[k] = &c;
                else if (choice_identity_of(c.family, c.params) !=
                         choice_identity_of(known[k]->family, known[k]->params))
                    conflict = true;
            }
        if (conflict) continue;
        for (size_t k = 0; k < aligned; ++k) {
            const nlohmann::ordered_json params = known[k] ? known[k]->params : nlohmann::ordered_json::object();
            for (auto* op : ops) {
                RankChoice& c = op->choices[k];
                if (c.params.empty() && !params.empty()) {
                    c.params = params;
                    c.display.clear();
                }
                describe_choice(c);
                if (!c.config_known) {
                    c.identity = c.family + "#" + std::to_string(k + 1);
                    c.display = c.family + " (choice " + std::to_string(k + 1) + " of " + std::to_string(n) +
                                ", config in no table)";
                }
            }
        }
    }
}

std::string strides_of(const std::string& inputs_key) {
    auto keys = timings::parse_inputs_key(inputs_key);
    if (!keys) return {};
    std::string s;
    for (const auto& k : *keys) {
        std::string one;
        for (const auto& st : k.strides) one += (one.empty() ? "" : ", ") + st;
        s += (s.empty() ? "[" : ", [") + one + "]";
    }
    return s;
}

std::string choice_label(const RankChoice& c) {
    std::string cfg = timings::config_summary(c.params);
    return cfg.empty() ? c.family : c.family + " (" + cfg + ")";
}

OpsComparison compare_ops(const std::vector<const LoadedRank*>& group) {
    OpsComparison out;
    if (group.empty()) return out;
    // Per rank: its ops by key.
    std::vector<std::map<std::string, const RankOp*>> by_key(group.size());
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::size_t>> present;
    for (size_t r = 0; r < group.size(); ++r)
        for (const auto& op : group[r]->ops) {
            std::string k = op_key(op);
            if (by_key[r].emplace(k, &op).second) {
                if (!present.count(k)) order.push_back(k);
                present[k].push_back(r);
            }
        }
    for (const auto& k : order) {
        const auto& on = present[k];
        const RankOp* first = by_key[on.front()].at(k);
        if (on.size() != group.size()) {
            std::string who;
            for (auto r : on) who += (who.empty() ? "" : ", ") + group[r]->label;
            out.not_on_every_rank.push_back(first->op + " " + first->inputs + " " + first->precision + ": only on " +
                                            who);
            continue;
        }
        ++out.compared;
        std::vector<const RankOp*> ops;
        for (size_t r = 0; r < group.size(); ++r) ops.push_back(by_key[r].at(k));
        std::vector<std::string> winners;
        for (const auto* op : ops) winners.push_back(op->winner < 0 ? "" : op->choices[op->winner].identity);
        if (std::all_of(winners.begin(), winners.end(), [&](const std::string& w) { return w == winners.front(); }))
            continue;
        OpDivergence d;
        d.op = first->op;
        d.inputs_key = first->inputs_key;
        d.inputs = first->inputs;
        d.precision = first->precision;
        d.strides = strides_of(first->inputs_key);
        std::vector<ChoiceConfig> configs;
        for (size_t r = 0; r < group.size(); ++r) {
            if (winners[r].empty()) {
                d.winner.push_back(-1);
                continue;
            }
            auto it = std::find_if(d.competing.begin(), d.competing.end(),
                                   [&](const CompetingChoice& c) { return c.identity == winners[r]; });
            if (it == d.competing.end()) {
                const RankChoice& w = ops[r]->choices[ops[r]->winner];
                CompetingChoice c;
                c.identity = w.identity;
                c.label = choice_label(w);
                for (const auto* op : ops) {
                    const RankChoice* mine = find_identity(*op, w.identity);
                    c.names.push_back(mine ? mine->name : "");
                    c.displays.push_back(mine ? mine->display : "");
                    c.ms.push_back(mine ? mine->ms : std::nullopt);
                }
                configs.push_back({w.family, w.params, w.config_known});
                d.competing.push_back(std::move(c));
                it = d.competing.end() - 1;
            }
            d.winner.push_back(static_cast<int>(it - d.competing.begin()));
        }
        for (size_t r = 0; r < group.size(); ++r) {
            std::optional<double> lo, hi;
            for (const auto& c : d.competing) {
                if (!c.ms[r]) continue;
                lo = lo ? std::min(*lo, *c.ms[r]) : *c.ms[r];
                hi = hi ? std::max(*hi, *c.ms[r]) : *c.ms[r];
            }
            if (lo && hi && *lo > 0) d.spread_pct = std::max(d.spread_pct, (*hi / *lo - 1) * 100);
        }
        d.verdict = choices_effect(configs);
        out.differ.push_back(std::move(d));
    }
    return out;
}

}  // namespace kiln::ranks
