#include "ranks/rank_agreement.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "handback/timing_cache_write.hpp"
#include "inductor/roots.hpp"
#include "ranks/ranks_report.hpp"

namespace kiln::ranks {
namespace {

using Json = nlohmann::ordered_json;

const RankChoice* with_identity(const RankOp& op, const std::string& identity) {
    for (const auto& c : op.choices)
        if (c.identity == identity) return &c;
    return nullptr;
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string op_label(const RankOp& op) { return op.op + " " + op.inputs + " " + op.precision; }

// The fastest valid time of the rank's other choices (nullopt: none).
std::optional<double> fastest_other(const RankOp& op, const std::string& identity) {
    std::optional<double> best;
    for (const auto& c : op.choices)
        if (c.identity != identity && c.ms) best = best ? std::min(*best, *c.ms) : *c.ms;
    return best;
}

}  // namespace

Result<AgreeRule> parse_agree_rule(const std::string& text) {
    if (text == "median") return AgreeRule::median;
    if (text == "majority") return AgreeRule::majority;
    return make_error(Errc::invalid_argument, "unknown rule '" + text + "'", "--rule", "median or majority");
}

const char* agree_rule_name(AgreeRule r) { return r == AgreeRule::median ? "median" : "majority"; }

std::string agree_rule_text(AgreeRule r) {
    return r == AgreeRule::median
               ? "the choice with the smallest median of the ranks' measured times, among those every rank measured"
               : "the choice most ranks picked (a tie: the smaller median of the ranks' times), among those every "
                 "rank measured";
}

std::size_t Agreement::to_write() const {
    std::size_t n = 0;
    for (const auto& o : ops)
        if (std::any_of(o.write_ms.begin(), o.write_ms.end(), [](const auto& w) { return w.has_value(); })) ++n;
    return n;
}

Agreement agree(const std::vector<const LoadedRank*>& group, AgreeRule rule, const std::string& group_label) {
    Agreement a;
    a.rule = rule;
    a.group = group_label;
    for (const auto* r : group) a.ranks.push_back(r->label);
    if (group.empty()) return a;
    for (const auto& first : group.front()->ops) {
        std::vector<const RankOp*> ops{&first};
        for (size_t r = 1; r < group.size(); ++r) {
            auto it = std::find_if(group[r]->ops.begin(), group[r]->ops.end(), [&](const RankOp& o) {
                return o.op == first.op && o.inputs_key == first.inputs_key && o.precision == first.precision;
            });
            if (it == group[r]->ops.end()) break;
            ops.push_back(&*it);
        }
        if (ops.size() != group.size()) continue;  // not on every rank: the report names it
        // Every choice every rank measured, with its median and its votes.
        struct Candidate {
            const RankChoice* first;
            double median;
            int votes;
        };
        std::vector<Candidate> cands;
        for (const auto& c : first.choices) {
            // A choice whose config no table gave is still one choice on every rank when the ranks'
            // lists align (its identity is its position, align_choices); one that matches no other
            // rank's choice never gets every rank's time.
            if (!c.ms) continue;
            std::vector<double> times;
            int votes = 0;
            for (const auto* op : ops) {
                const RankChoice* mine = with_identity(*op, c.identity);
                if (!mine || !mine->ms) break;
                times.push_back(*mine->ms);
                if (op->winner >= 0 && op->choices[op->winner].identity == c.identity) ++votes;
            }
            if (times.size() == ops.size()) cands.push_back({&c, median_of(times), votes});
        }
        if (cands.empty()) {
            a.skipped.push_back({op_label(first), "no choice was measured by every rank (or matched across them)"});
            continue;
        }
        auto better = [&](const Candidate& x, const Candidate& y) {
            if (rule == AgreeRule::majority && x.votes != y.votes) return x.votes > y.votes;
            return x.median < y.median;
        };
        const Candidate best = *std::min_element(cands.begin(), cands.end(), better);
        AgreedOp ag;
        ag.op = first.op;
        ag.inputs_key = first.inputs_key;
        ag.inputs = first.inputs;
        ag.precision = first.precision;
        ag.identity = best.first->identity;
        ag.label = choice_label(*best.first);
        ag.params = best.first->params;
        ag.median_ms = best.median;
        ag.votes = best.votes;
        double lowest = std::numeric_limits<double>::infinity();
        for (const auto* op : ops) {
            const RankChoice* mine = with_identity(*op, ag.identity);
            ag.names.push_back(mine->name);
            ag.ms.push_back(*mine->ms);
            lowest = std::min(lowest, *mine->ms);
            ag.winners.push_back(op->winner >= 0 ? choice_label(op->choices[op->winner]) : "");
            if (op->winner < 0 || op->choices[op->winner].identity != ag.identity) ag.ranks_differed = true;
        }
        for (size_t r = 0; r < ops.size(); ++r) {
            auto other = fastest_other(*ops[r], ag.identity);
            if (!other || ag.ms[r] < *other) {
                ag.write_ms.push_back(std::nullopt);  // already strictly the fastest there
                continue;
            }
            double t = lowest < *other ? lowest : std::nextafter(*other, 0.0);
            ag.write_ms.push_back(t);
        }
        a.ops.push_back(std::move(ag));
    }
    return a;
}

Result<std::vector<WrittenRankCache>> write_agreed_caches(const std::vector<const LoadedRank*>& group,
                                                          const Agreement& agreement) {
    // Check every rank first: a file whose system block does not give its own name is not torch's.
    std::vector<std::vector<handback::MeasuredOp>> per_rank(group.size());
    for (size_t r = 0; r < group.size(); ++r) {
        const LoadedRank& rank = *group[r];
        for (const auto& ag : agreement.ops) {
            if (r >= ag.write_ms.size() || !ag.write_ms[r]) continue;
            handback::MeasuredOp m;
            m.op = ag.op;
            m.inputs = ag.inputs_key;
            m.precision = ag.precision;
            m.device_name = rank.device;
            m.versions = {rank.triton_key, rank.cuda_version, "the rank's timing cache " + rank.timing_cache};
            m.choices.push_back({ag.names[r], "", *ag.write_ms[r], std::nullopt, {}});
            per_rank[r].push_back(std::move(m));
        }
        if (!per_rank[r].empty() && per_rank[r].front().system_hash() != rank.system_hash)
            return make_error(Errc::unsupported,
                              "this timing cache's system block does not hash to its file name; nothing was written",
                              rank.timing_cache, "write only timing caches torch itself wrote");
    }
    std::vector<WrittenRankCache> out;
    for (size_t r = 0; r < group.size(); ++r) {
        if (per_rank[r].empty()) {
            out.push_back({group[r]->label, group[r]->timing_cache, 0});
            continue;
        }
        // A rank's root is found in its folder (resolve_rank), no command opened it: opened once, here.
        KILN_TRY(UniqueFd root_fd, inductor::open_root_dir(group[r]->root));
        KILN_TRY(auto rep, handback::write_timing_cache({group[r]->root, root_fd.get()}, per_rank[r]));
        for (const auto& f : rep.files) out.push_back({group[r]->label, f.path, static_cast<int>(per_rank[r].size())});
    }
    return out;
}

handback::LookupTable agreed_lookup_table(const std::vector<const LoadedRank*>& group, const Agreement& agreement) {
    std::vector<handback::MeasuredOp> ops;
    if (group.empty()) return {};
    const LoadedRank& first = *group.front();
    for (const auto& ag : agreement.ops) {
        handback::MeasuredOp m;
        m.op = ag.op;
        m.inputs = ag.inputs_key;
        m.precision = ag.precision;
        m.device_name = first.device;
        m.choices.push_back({ag.names.front(), "", ag.median_ms, std::nullopt, ag.params});
        // The extern choices name an addmm's scalars (alpha, beta), which its lookup key needs.
        for (const auto& op : first.ops)
            if (op.op == ag.op && op.inputs_key == ag.inputs_key && op.precision == ag.precision)
                for (const auto& c : op.choices)
                    if (c.name != ag.names.front() && c.family.rfind("triton_", 0) != 0)
                        m.choices.push_back(
                            {c.name, "extern", std::numeric_limits<double>::infinity(), std::nullopt, {}});
        ops.push_back(std::move(m));
    }
    // The first rank's root is found in its folder too: opened once, here, for its benchmark modules
    // (read beneath it); one that cannot be opened leaves a Triton winner to its known params.
    auto root_fd = inductor::open_root_dir(first.root);
    return handback::build_lookup_table(ops, {first.root, root_fd ? root_fd->get() : -1});
}

Json to_json(const Agreement& a) {
    Json ops = Json::array();
    for (const auto& o : a.ops) {
        Json write = Json::array();
        for (const auto& w : o.write_ms) write.push_back(w ? Json(*w) : Json(nullptr));
        ops.push_back(Json{{"op", o.op},
                           {"inputs", o.inputs},
                           {"inputs_key", o.inputs_key},
                           {"precision", o.precision},
                           {"agreed", o.label},
                           {"identity", o.identity},
                           {"names", o.names},
                           {"ms", o.ms},
                           {"median_ms", o.median_ms},
                           {"votes", o.votes},
                           {"winners", o.winners},
                           {"ranks_differed", o.ranks_differed},
                           {"write_ms", std::move(write)}});
    }
    Json skipped = Json::array();
    for (const auto& s : a.skipped) skipped.push_back(Json{{"op", s.op}, {"why", s.why}});
    return Json{{"rule", agree_rule_name(a.rule)},
                {"rule_text", agree_rule_text(a.rule)},
                {"times_written",
                 "each rank keeps its own times; the agreed choice gets the smallest time any rank measured for it, "
                 "lowered just below the rank's fastest other choice where it was not already the fastest"},
                {"group", a.group},
                {"ranks", a.ranks},
                {"ops", std::move(ops)},
                {"to_write", a.to_write()},
                {"skipped", std::move(skipped)}};
}

}  // namespace kiln::ranks
