#include "startup/startup_compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "startup/causes.hpp"

namespace kiln::startup {

namespace {

// key#occurrence -> the compile, for matching across processes.
std::vector<std::pair<std::string, const CompileCost*>> keyed(const ProcessStartup& p) {
    std::map<std::string, int> seen;
    std::vector<std::pair<std::string, const CompileCost*>> out;
    for (const auto& c : p.compiles) out.push_back({c.key() + "#" + std::to_string(seen[c.key()]++), &c});
    return out;
}

const PhaseCost* top_phase(const CompileCost& c) { return c.phases.empty() ? nullptr : &c.phases.front(); }

std::string first_clause(const std::string& s) {
    std::size_t cut = s.find("; ");
    return cut == std::string::npos ? s : s.substr(0, cut);
}

std::string phase_why(const CompileCost& c) {
    const PhaseCost* p = top_phase(c);
    if (!p) return "no spans";
    return p->name + " " + seconds_text(p->seconds) + (p->cause.empty() ? "" : ": " + first_clause(p->cause));
}

std::string rank_name(const ProcessStartup& p) { return p.rank >= 0 ? "rank " + std::to_string(p.rank) : p.label; }

// "ranks 0-2" / "rank 3" / "ranks 0, 2"
std::string rank_list(const std::vector<std::string>& names) {
    std::vector<int> nums;
    for (const auto& n : names) {
        if (n.rfind("rank ", 0) != 0) {
            std::string s;
            for (const auto& m : names) s += (s.empty() ? "" : ", ") + m;
            return s;
        }
        nums.push_back(std::stoi(n.substr(5)));
    }
    std::sort(nums.begin(), nums.end());
    std::string s;
    for (std::size_t i = 0; i < nums.size();) {
        std::size_t j = i;
        while (j + 1 < nums.size() && nums[j + 1] == nums[j] + 1) ++j;
        s += (s.empty() ? "" : ", ") + std::to_string(nums[i]) + (j > i ? "-" + std::to_string(nums[j]) : "");
        i = j + 1;
    }
    return (nums.size() == 1 ? "rank " : "ranks ") + s;
}

}  // namespace

bool phase_changed(double before, double after) {
    constexpr double kMinSeconds = 0.1, kMinShare = 0.2;
    const double d = std::abs(after - before);
    return d > kMinSeconds && d > kMinShare * std::max(before, after);
}

std::string ProcessComparison::summary() const {
    const double saved = before_seconds - after_seconds;
    return before + " -> " + after + ": " + seconds_text(before_seconds) + " -> " + seconds_text(after_seconds) +
           " of compile seconds (the compiles' times summed), " + seconds_text(std::abs(saved)) +
           (saved >= 0 ? " less" : " more") + "; the process wall time is not in the trace";
}

ProcessComparison compare_processes(const ProcessStartup& before, const ProcessStartup& after) {
    ProcessComparison out;
    out.before = before.label;
    out.after = after.label;
    out.before_seconds = before.compile_seconds;
    out.after_seconds = after.compile_seconds;
    auto a = keyed(before), b = keyed(after);
    std::map<std::string, const CompileCost*> in_a(a.begin(), a.end());
    std::map<std::string, bool> matched;
    for (const auto& [key, c] : b) {
        CompileDelta d;
        d.compile = c->label();
        d.in_after = true;
        d.after = c->seconds;
        auto it = in_a.find(key);
        if (it == in_a.end()) {
            d.verdict = "only after";
            d.why = "no such compile in " + before.label + ": " + phase_why(*c);
            out.compiles.push_back(std::move(d));
            continue;
        }
        matched[key] = true;
        const CompileCost& o = *it->second;
        d.in_before = true;
        d.before = o.seconds;
        const double margin = std::max(0.05, 0.1 * o.seconds);
        // The phase that changed most (the biggest drop for a faster compile, the biggest rise otherwise),
        // with what the later process says about it when it changed materially: a phase alike in both
        // runs is left unblamed, whatever cause a single run would give it.
        const bool faster = c->seconds < o.seconds - margin;
        double biggest = 0;
        std::map<std::string, double> delta;
        for (const auto& p : o.phases) delta[p.name] -= p.seconds;
        for (const auto& p : c->phases) delta[p.name] += p.seconds;
        for (const auto& [name, s] : delta)
            if (faster ? s < biggest : s > biggest) {
                biggest = s;
                d.phase = name;
            }
        d.phase_before = d.phase.empty() ? 0 : o.phase_seconds(d.phase);
        d.phase_after = d.phase.empty() ? 0 : c->phase_seconds(d.phase);
        const bool material = !d.phase.empty() && phase_changed(d.phase_before, d.phase_after);
        if (material)
            for (const auto& p : (faster ? o : *c).phases)
                if (p.name == d.phase && !p.why.empty()) d.cause = first_clause(p.why);
        const std::string change = d.phase.empty() ? std::string()
                                                   : d.phase + " " + seconds_text(d.phase_before) + " -> " +
                                                         seconds_text(d.phase_after) +
                                                         (d.cause.empty() ? std::string() : " (" + d.cause + ")");
        const bool fx_changed = c->fx_state != o.fx_state;
        if (faster) {
            d.verdict = "faster";
            if (c->fx_state == "hit" && fx_changed)
                d.why = "the FX graph hit (" + before.label + ": " + (o.miss.empty() ? o.fx_state : o.miss) + "); " +
                        change;
            else d.why = change;
        } else if (c->seconds > o.seconds + margin) {
            d.verdict = "slower";
            d.why = change + (c->miss.empty() || !fx_changed ? "" : "; " + c->miss);
            if (!material) d.why += "; no phase changed by more than 20 % and 0.1 s: nothing to blame";
        } else {
            d.verdict = "unchanged";
            const PhaseCost* top = top_phase(*c);
            d.why = c->fx_state == "miss" || c->fx_state == "bypass"
                        ? "the FX graph missed in both runs: " + c->miss
                        : "no phase changed materially (" +
                              (top ? top->name + " " + seconds_text(o.phase_seconds(top->name)) + " -> " +
                                         seconds_text(top->seconds) + ", the largest"
                                   : std::string("no spans")) +
                              "): nothing to blame";
        }
        out.compiles.push_back(std::move(d));
    }
    for (const auto& [key, c] : a)
        if (!matched.count(key)) {
            CompileDelta d;
            d.compile = c->label();
            d.in_before = true;
            d.before = c->seconds;
            d.verdict = "only before";
            d.why = "not compiled in " + after.label +
                    ": that run did not reach this frame, or reused what it had compiled";
            out.compiles.push_back(std::move(d));
        }
    return out;
}

std::vector<RankDifference> compare_ranks(const std::vector<ProcessStartup>& ranks) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<std::pair<std::size_t, const CompileCost*>>> by_key;
    for (std::size_t r = 0; r < ranks.size(); ++r)
        for (const auto& [key, c] : keyed(ranks[r])) {
            if (!by_key.count(key)) order.push_back(key);
            by_key[key].push_back({r, c});
        }
    std::vector<RankDifference> out;
    for (const auto& key : order) {
        const auto& seen = by_key[key];
        RankDifference d;
        d.compile = seen.front().second->label();
        std::vector<bool> present(ranks.size(), false);
        for (const auto& [r, c] : seen) {
            present[r] = true;
            if (c->fx_state == "hit") {
                d.hit.push_back(rank_name(ranks[r]));
            } else if (c->fx_state == "miss" || c->fx_state == "bypass" || c->fx_state == "mixed") {
                d.missed.push_back(rank_name(ranks[r]));
                d.why.push_back(rank_name(ranks[r]) + ": " + (c->miss.empty() ? c->fx_state : c->miss));
            }
        }
        for (std::size_t r = 0; r < ranks.size(); ++r)
            if (!present[r]) d.absent.push_back(rank_name(ranks[r]));
        const bool differs = (!d.hit.empty() && !d.missed.empty()) || !d.absent.empty();
        if (!differs) continue;
        if (!d.hit.empty() && !d.missed.empty())
            d.summary = rank_list(d.missed) + " missed the graph " + rank_list(d.hit) +
                        " hit: " + (d.why.empty() ? std::string() : d.why.front().substr(d.why.front().find(": ") + 2));
        else
            d.summary = rank_list(d.absent) + " did not compile it (" + std::to_string(seen.size()) + " of " +
                        std::to_string(ranks.size()) +
                        " did): the ranks took different paths, which can hang a collective";
        out.push_back(std::move(d));
    }
    return out;
}

nlohmann::ordered_json to_json(const ProcessComparison& c) {
    using oj = nlohmann::ordered_json;
    oj compiles = oj::array();
    for (const auto& d : c.compiles)
        compiles.push_back({{"compile", d.compile},
                            {"before_seconds", d.in_before ? oj(d.before) : oj(nullptr)},
                            {"after_seconds", d.in_after ? oj(d.after) : oj(nullptr)},
                            {"verdict", d.verdict},
                            {"why", d.why},
                            {"phase", d.phase},
                            {"phase_before_seconds", d.phase_before},
                            {"phase_after_seconds", d.phase_after},
                            {"cause", d.cause}});
    return {{"before", c.before},
            {"after", c.after},
            {"measure",
             "compile seconds: each compile's compilation_metrics time, else its span, summed; not the "
             "process wall time"},
            {"before_seconds", c.before_seconds},
            {"after_seconds", c.after_seconds},
            {"saved_seconds", c.before_seconds - c.after_seconds},
            {"summary", c.summary()},
            {"compiles", std::move(compiles)}};
}

nlohmann::ordered_json to_json(const std::vector<RankDifference>& diffs) {
    using oj = nlohmann::ordered_json;
    oj out = oj::array();
    for (const auto& d : diffs)
        out.push_back({{"compile", d.compile},
                       {"hit", d.hit},
                       {"missed", d.missed},
                       {"absent", d.absent},
                       {"why", d.why},
                       {"summary", d.summary}});
    return out;
}

}  // namespace kiln::startup
