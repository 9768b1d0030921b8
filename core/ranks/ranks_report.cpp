#include "ranks/ranks_report.hpp"

#include <map>

namespace kiln::ranks {
namespace {

using Json = nlohmann::ordered_json;

std::string group_key(const LoadedRank& r) { return r.device + "\n" + r.system_hash + "\n" + r.torch_version; }

std::string group_label(const LoadedRank& r) {
    std::string s = r.device.empty() ? "(no timing cache: device unknown)" : r.device;
    s += ", torch " + (r.torch_version.empty() ? std::string("unknown") : r.torch_version);
    if (!r.system_hash.empty()) s += ", timing cache " + r.system_hash.substr(0, 8) + "…";
    return s;
}

Json opt_ms(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json ops_json(const OpsComparison& o) {
    Json differ = Json::array();
    for (const auto& d : o.differ) {
        Json competing = Json::array();
        for (const auto& c : d.competing) {
            Json ms = Json::array();
            for (const auto& m : c.ms) ms.push_back(opt_ms(m));
            competing.push_back(Json{{"identity", c.identity},
                                     {"label", c.label},
                                     {"names", c.names},
                                     {"displays", c.displays},
                                     {"ms", std::move(ms)}});
        }
        differ.push_back(Json{{"op", d.op},
                              {"inputs", d.inputs},
                              {"strides", d.strides},
                              {"inputs_key", d.inputs_key},
                              {"precision", d.precision},
                              {"winner", d.winner},
                              {"competing", std::move(competing)},
                              {"spread_pct", d.spread_pct},
                              {"effect", to_json(d.verdict)}});
    }
    return Json{{"compared", o.compared},
                {"differ_count", o.differ.size()},
                {"differ", std::move(differ)},
                {"not_on_every_rank", o.not_on_every_rank}};
}

Json kernels_json(const KernelConfigComparison& k) {
    Json differ = Json::array();
    for (const auto& s : k.differ)
        differ.push_back(Json{{"configs_hash", s.configs_hash},
                              {"keys", s.keys},
                              {"per_rank", s.per_rank},
                              {"one_per_rank", s.one_per_rank},
                              {"configs", s.configs},
                              {"files", s.files},
                              {"effect", to_json(s.verdict)}});
    return Json{{"sets", k.sets}, {"kernels", k.kernels}, {"differ_count", k.differ.size()}, {"differ", differ}};
}

Json graphs_json(const GraphComparison& g) {
    Json differ = Json::array();
    for (const auto& d : g.differ) {
        Json comps = Json::array(), code = Json::array();
        for (const auto& c : d.components)
            comps.push_back(Json{
                {"component", c.component}, {"kind", c.kind}, {"values", c.values}, {"effect", to_json(c.verdict)}});
        for (const auto& c : d.code)
            code.push_back(
                Json{{"section", c.section}, {"kind", c.kind}, {"values", c.values}, {"effect", to_json(c.verdict)}});
        differ.push_back(Json{{"kind", d.kind},
                              {"what", d.what},
                              {"ids", d.ids},
                              {"components", std::move(comps)},
                              {"code", std::move(code)},
                              {"device_index_only", d.device_index_only},
                              {"effect", to_json(d.verdict)}});
    }
    return Json{{"keys", g.keys},
                {"keys_differ", g.keys_differ},
                {"modules", g.modules},
                {"modules_differ", g.modules_differ},
                {"modules_device_index_only", g.modules_device_index_only},
                {"differ", std::move(differ)}};
}

}  // namespace

std::size_t RanksReport::ops_compared() const {
    std::size_t n = 0;
    for (const auto& g : groups) n += g.ops.compared;
    return n;
}

std::size_t RanksReport::ops_differ() const {
    std::size_t n = 0;
    for (const auto& g : groups) n += g.ops.differ.size();
    return n;
}

std::string RanksReport::headline() const {
    if (ops_compared() == 0) return "no autotuned op was found on two ranks of one kind";
    if (ops_differ() == 0) return "ranks agree on all " + std::to_string(ops_compared()) + " autotuned ops";
    return "ranks disagree on " + std::to_string(ops_differ()) + " of " + std::to_string(ops_compared()) +
           " autotuned ops";
}

std::vector<LoadedRank> load_ranks(const std::vector<RankSpec>& specs, std::vector<RankProblem>& problems,
                                   const std::atomic<bool>* cancel,
                                   const std::function<void(std::size_t tried)>& progress) {
    std::vector<LoadedRank> out;
    std::size_t tried = 0;
    for (const auto& s : specs) {
        if (cancel && cancel->load(std::memory_order_relaxed)) break;
        auto r = load_rank(s);
        if (progress) progress(++tried);
        if (!r) {
            problems.push_back({s.path.string(), r.error().str()});
            continue;
        }
        out.push_back(std::move(*r));
    }
    // Two folders of one name (a/rank0, b/rank0) are told apart by their paths.
    std::map<std::string, int> count;
    for (const auto& r : out) ++count[r.label];
    for (auto& r : out)
        if (count[r.label] > 1) r.label = r.folder;
    return out;
}

Status check_two_readable(std::size_t readable, const std::vector<RankProblem>& problems) {
    if (readable >= 2) return ok_status();
    std::string why;
    for (const auto& p : problems) why += (why.empty() ? "" : "; ") + p.rank + ": " + p.error;
    return make_error(problems.empty() ? Errc::invalid_argument : Errc::not_found,
                      "need two readable ranks to compare, " + std::to_string(readable) + " read", why,
                      "name each rank's folder (its cache root, or the folder holding inductor/, stderr*.log and "
                      "trace/)");
}

std::vector<std::vector<std::size_t>> group_ranks(const std::vector<LoadedRank>& ranks) {
    std::vector<std::vector<std::size_t>> groups;
    std::map<std::string, std::size_t> index;
    for (size_t i = 0; i < ranks.size(); ++i) {
        auto [it, fresh] = index.try_emplace(group_key(ranks[i]), groups.size());
        if (fresh) groups.emplace_back();
        groups[it->second].push_back(i);
    }
    return groups;
}

RanksReport compare_ranks(std::vector<LoadedRank>& ranks, std::vector<RankProblem> problems) {
    RanksReport rep;
    rep.unreadable = std::move(problems);
    for (const auto& r : ranks)
        rep.ranks.push_back({r.label, r.folder, r.root, r.timing_cache, r.device, r.system_hash, r.torch_version,
                             r.ops.size(), r.best_configs.size(), r.keys.size(), r.outputs.size(), r.warnings});
    for (const auto& members : group_ranks(ranks)) {
        RankGroup g;
        const LoadedRank& first = ranks[members.front()];
        g.label = group_label(first);
        g.device = first.device;
        g.torch_version = first.torch_version;
        g.system_hash = first.system_hash;
        g.members = members;
        std::vector<LoadedRank*> aligned;
        for (auto i : members) aligned.push_back(&ranks[i]);
        align_choices(aligned);
        std::vector<const LoadedRank*> group;
        for (auto i : members) {
            group.push_back(&ranks[i]);
            g.ranks.push_back(ranks[i].label);
        }
        if (group.size() >= 2) {
            g.ops = compare_ops(group);
            g.kernels = compare_kernel_configs(group);
            g.graphs = compare_graphs(group);
        }
        rep.groups.push_back(std::move(g));
    }
    if (rep.groups.size() > 1) {
        std::string kinds;
        for (const auto& g : rep.groups) kinds += (kinds.empty() ? "" : "; ") + g.label;
        rep.notes.push_back("the ranks are of " + std::to_string(rep.groups.size()) +
                            " kinds (GPU, timing-cache system or torch version): each kind is compared on its own, "
                            "never with another (" +
                            kinds + ")");
    }
    for (const auto& g : rep.groups)
        if (g.ranks.size() == 1)
            rep.notes.push_back(g.ranks.front() + " is the only rank of its kind (" + g.label + "): not compared");
    for (const auto& p : rep.unreadable) rep.notes.push_back("not compared: " + p.rank + ": " + p.error);
    return rep;
}

Json to_json(const Verdict& v) { return Json{{"effect", effect_name(v.effect)}, {"why", v.why}}; }

Json to_json(const RanksReport& rep) {
    Json ranks = Json::array();
    for (const auto& r : rep.ranks)
        ranks.push_back(Json{{"label", r.label},
                             {"folder", r.folder},
                             {"root", r.root},
                             {"timing_cache", r.timing_cache},
                             {"device", r.device},
                             {"system_hash", r.system_hash},
                             {"torch_version", r.torch_version},
                             {"ops", r.ops},
                             {"best_configs", r.best_configs},
                             {"graph_keys", r.keys},
                             {"output_modules", r.outputs},
                             {"warnings", r.warnings}});
    Json unreadable = Json::array();
    for (const auto& p : rep.unreadable) unreadable.push_back(Json{{"rank", p.rank}, {"error", p.error}});
    Json groups = Json::array();
    for (const auto& g : rep.groups)
        groups.push_back(Json{{"label", g.label},
                              {"device", g.device},
                              {"torch_version", g.torch_version},
                              {"system_hash", g.system_hash},
                              {"ranks", g.ranks},
                              {"ops", ops_json(g.ops)},
                              {"best_configs", kernels_json(g.kernels)},
                              {"graphs", graphs_json(g.graphs)}});
    return Json{{"headline", rep.headline()}, {"ops_compared", rep.ops_compared()},  {"ops_differ", rep.ops_differ()},
                {"ranks", std::move(ranks)},  {"unreadable", std::move(unreadable)}, {"groups", std::move(groups)},
                {"notes", rep.notes}};
}

}  // namespace kiln::ranks
