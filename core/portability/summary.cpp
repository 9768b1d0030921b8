// The portability report's summary (counts, the components that decide, the hazards, the answer in
// words), folded item by item (SummaryFold), and its JSON form.
#include <algorithm>
#include <map>

#include "portability/portable.hpp"
#include "portability/summary_fold.hpp"

namespace kiln::portability {

using ojson = nlohmann::ordered_json;

namespace {

bool is_graph(ItemKind k) { return k == ItemKind::fx_graph || k == ItemKind::aot_autograd; }

std::vector<ComponentTally> sorted(std::map<std::string, ComponentTally>& m) {
    std::vector<ComponentTally> v;
    for (auto& [k, t] : m) v.push_back(std::move(t));
    std::stable_sort(v.begin(), v.end(),
                     [](const ComponentTally& a, const ComponentTally& b) { return a.items > b.items; });
    return v;
}

std::string short_value(const std::string& v, std::size_t n = 60) { return v.size() > n ? v.substr(0, n) + "…" : v; }

std::string shown_value(const std::string& component, const std::string& v) {
    if (component == names::device) {
        std::string name = device_name_of(v);
        if (!name.empty()) return name;
    }
    return short_value(v, component == names::system_hash ? 12 : 60);
}

std::string differing_text(const std::vector<ComponentTally>& d, std::size_t misses) {
    std::string s;
    for (std::size_t i = 0; i < d.size() && i < 4; ++i) {
        const auto& t = d[i];
        s += (i ? ", " : "") + t.component + " differs in " + (t.items == misses ? "all " : "") +
             std::to_string(t.items) + " (" + shown_value(t.component, t.cached) + " -> " +
             shown_value(t.component, t.target) + ")";
    }
    return s;
}

std::string graph_line(const char* what, const KindCounts& c, std::map<std::string, ComponentTally>& diff,
                       std::map<std::string, ComponentTally>& unk, const std::string& label) {
    std::string s =
        std::string(what) + ": " + std::to_string(c.hit) + " of " + std::to_string(c.total) + " would hit on " + label;
    if (c.miss) s += "; " + std::to_string(c.miss) + " miss: " + differing_text(sorted(diff), c.miss);
    if (c.unknown) {
        auto u = sorted(unk);
        s += "; " + std::to_string(c.unknown) + " unknown: " + u[0].component + " (" + short_value(u[0].why, 140) + ")";
    }
    return s;
}

std::string timing_line(const KindCounts& c, const std::vector<std::string>& others, const std::string& label) {
    std::string s =
        "autotune timing caches: " + std::to_string(c.hit) + " of " + std::to_string(c.total) + " apply to " + label;
    if (!others.empty()) {
        std::string list;
        for (const auto& o : others) list += (list.empty() ? "" : ", ") + o;
        s += "; autotune results for " + list + " do not apply";
    }
    if (c.unknown) s += "; " + std::to_string(c.unknown) + " unknown";
    return s;
}

std::string simple_line(const char* what, const char* verb, const KindCounts& c,
                        const std::optional<Difference>& first_differs,
                        const std::optional<UnknownComponent>& first_unknown) {
    std::string s = std::string(what) + ": " + std::to_string(c.hit) + " of " + std::to_string(c.total) + " " + verb;
    if (c.miss && first_differs) {
        const auto& d = *first_differs;
        s += "; " + std::to_string(c.miss) + " do not (" + d.component + ": " + short_value(d.cached, 40) + " -> " +
             short_value(d.target, 60) + ")";
    } else if (!c.miss && first_unknown) {
        s += "; " + std::to_string(c.unknown) + " unknown: " + first_unknown->name + " (" +
             short_value(first_unknown->why, 140) + ")";
    }
    return s;
}

void tally(std::map<std::string, ComponentTally>& m, const std::string& key, ComponentTally first) {
    auto& t = m[key];
    if (t.items++ == 0) t = std::move(first);
}

}  // namespace

void SummaryFold::add(const PortableItem& it) {
    KindCounts& c = s_.counts[static_cast<std::size_t>(it.kind)];
    ++c.total;
    const Assessment& a = it.assessment;
    (a.verdict == Verdict::hit ? c.hit : a.verdict == Verdict::miss ? c.miss : c.unknown)++;
    if (is_graph(it.kind)) {
        const std::size_t k = it.kind == ItemKind::fx_graph ? 0 : 1;
        for (const auto& d : a.differs) {
            tally(diff_, d.component, {d.component, 1, d.cached, d.target, ""});
            tally(kind_diff_[k], d.component, {d.component, 1, d.cached, d.target, ""});
        }
        for (const auto& u : a.unknown) {
            tally(unk_, u.name, {u.name, 1, "", "", u.why});
            tally(kind_unk_[k], u.name, {u.name, 1, "", "", u.why});
        }
        for (const auto& h : it.hazards)
            tally(haz_, h.component + "\n" + h.value, {h.component, 1, h.value, "", h.why});
        return;
    }
    if (a.verdict == Verdict::hit) return;
    if (it.kind == ItemKind::timing_cache) {
        if (a.verdict != Verdict::miss) return;
        for (const auto& d : a.differs)
            if (d.component == names::device || (d.component == names::system_hash && timing_others_.empty())) {
                std::string name = d.component == names::device ? device_name_of(d.cached) : "";
                timing_others_.push_back(name.empty() ? it.path : name);
                break;
            }
        return;
    }
    FirstNotHit& f = first_[it.kind == ItemKind::best_config ? 0 : 1];
    if (!f.differs && !a.differs.empty()) f.differs = a.differs[0];
    if (!f.unknown && !a.unknown.empty()) f.unknown = a.unknown[0];
}

PortableSummary SummaryFold::finish(const std::string& label, const std::vector<std::string>& pgo_profiles) {
    PortableSummary s = std::move(s_);
    s.differing = sorted(diff_);
    s.unknown = sorted(unk_);
    s.hazards = sorted(haz_);
    const auto& fx = s.counts[0];
    const auto& aot = s.counts[1];
    std::size_t graphs = fx.total + aot.total, hits = fx.hit + aot.hit, misses = fx.miss + aot.miss;
    std::string answer = graphs == 0        ? "no graph entries in this cache"
                         : hits == graphs   ? "yes: all " + std::to_string(graphs) + " graph entries would hit"
                         : misses == graphs ? "no: none of the " + std::to_string(graphs) + " graph entries would hit"
                         : misses == 0 ? "unknown: " + std::to_string(graphs - hits) + " of " + std::to_string(graphs) +
                                             " graph entries cannot be decided"
                                       : "partly: " + std::to_string(hits) + " of " + std::to_string(graphs) +
                                             " graph entries would hit";
    s.lines.push_back("Will this cache hit on " + label + "? " + answer);
    if (fx.total) s.lines.push_back(graph_line("FX graph entries", fx, kind_diff_[0], kind_unk_[0], label));
    if (aot.total) s.lines.push_back(graph_line("AOTAutograd entries", aot, kind_diff_[1], kind_unk_[1], label));
    if (s.counts[2].total) s.lines.push_back(timing_line(s.counts[2], timing_others_, label));
    if (s.counts[3].total)
        s.lines.push_back(
            simple_line(".best_config files", "would be found", s.counts[3], first_[0].differs, first_[0].unknown));
    if (s.counts[4].total) {
        std::string l = simple_line("Triton kernel dirs", "were compiled for the target's GPU and Triton", s.counts[4],
                                    first_[1].differs, first_[1].unknown);
        s.lines.push_back(l +
                          " (Triton's own key also holds its full version key and the ptxas version, which a kernel "
                          "dir does not record)");
    }
    for (const auto& h : s.hazards)
        s.lines.push_back("bound to the environment, not the hardware: " + h.component + " = " +
                          short_value(h.cached, 80) + " in " + std::to_string(h.items) + " graph entries: " + h.why);
    for (const auto& p : pgo_profiles)
        s.lines.push_back(
            "bound to the job, not the hardware: the PGO profile " + p +
            " is read only by a process with the same job id, rank and tag (code_state_<job>_<rank>_<tag>)");
    return s;
}

PortableSummary summarize(const PortableReport& r) {
    SummaryFold fold;
    for (const auto& it : r.items) fold.add(it);
    return fold.finish(r.target.label(), r.pgo_profiles);
}

namespace {

ojson tallies(const std::vector<ComponentTally>& v, bool with_values, bool with_why) {
    ojson a = ojson::array();
    for (const auto& t : v) {
        ojson j{{"component", t.component}, {"entries", t.items}};
        if (with_values) {
            j["cached"] = t.cached;
            if (!t.target.empty()) j["target"] = t.target;
        }
        if (with_why) j["why"] = t.why;
        a.push_back(std::move(j));
    }
    return a;
}

}  // namespace

ojson report_to_json(const PortableReport& r) {
    ojson j;
    j["root"] = r.root;
    j["target"] = to_json(r.target);
    j["entries"] = ojson::array();
    for (const auto& it : r.items) {
        ojson e{{"path", it.path},
                {"kind", std::string(item_kind_name(it.kind))},
                {"verdict", std::string(verdict_name(it.assessment.verdict))}};
        if (!it.key.empty() && is_graph(it.kind)) e["key"] = it.key;
        e["differs"] = ojson::array();
        for (const auto& d : it.assessment.differs)
            e["differs"].push_back({{"component", d.component},
                                    {"cached", d.cached},
                                    {"target", d.target},
                                    {"scope", std::string(scope_name(d.scope))}});
        e["unknown"] = ojson::array();
        for (const auto& u : it.assessment.unknown) e["unknown"].push_back({{"component", u.name}, {"why", u.why}});
        if (!it.hazards.empty()) {
            e["hazards"] = ojson::array();
            for (const auto& h : it.hazards)
                e["hazards"].push_back({{"component", h.component}, {"value", h.value}, {"why", h.why}});
        }
        j["entries"].push_back(std::move(e));
    }
    ojson s;
    s["target"] = r.target.label();
    s["counts"] = ojson::object();
    for (std::size_t k = 0; k < kItemKinds; ++k) {
        const KindCounts& c = r.summary.counts[k];
        s["counts"][std::string(item_kind_name(static_cast<ItemKind>(k)))] =
            ojson{{"total", c.total}, {"hit", c.hit}, {"miss", c.miss}, {"unknown", c.unknown}};
    }
    s["differing"] = tallies(r.summary.differing, true, false);
    s["unknown"] = tallies(r.summary.unknown, false, true);
    s["hazards"] = tallies(r.summary.hazards, true, true);
    s["pgo_profiles"] = r.pgo_profiles;
    s["text"] = r.summary.lines;
    j["summary"] = std::move(s);
    j["skipped"] = r.skipped;
    return j;
}

}  // namespace kiln::portability
