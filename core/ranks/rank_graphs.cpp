// Graph cache keys (TORCH_TRACE cache events, matched by cache, compile id and occurrence) and output
// code modules (matched by AOT ID) across ranks. Texts are compared with the device index
// normalised, so that `cuda:0` against `cuda:1` is named as what it is; what still differs is named
// by its key component or code line, and a template kernel's difference by its config.
#include <algorithm>
#include <iterator>
#include <map>

#include "inductor/key_diff.hpp"
#include "ranks/ranks_report.hpp"
#include "timings/choice_name.hpp"
#include "timings/py_literal.hpp"

namespace kiln::ranks {
namespace {

using Json = nlohmann::ordered_json;

bool mentions(const std::string& s, std::initializer_list<const char*> words) {
    for (const char* w : words)
        if (s.find(w) != std::string::npos) return true;
    return false;
}

// The stretch of `a` around its first difference from `b` (whole when short).
std::string excerpt(const std::string& a, const std::string& b) {
    constexpr std::size_t kWidth = 160;
    if (a.size() <= kWidth) return a;
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    std::size_t from = i > 60 ? i - 60 : 0;
    std::string s = a.substr(from, kWidth);
    return (from > 0 ? "…" : "") + s + (from + kWidth < a.size() ? "…" : "");
}

struct TextDifference {
    std::string kind;  // "device_index", "process_group", "rank", "other"
    Verdict verdict;
    std::string a_line, b_line;  // the first lines that differ (normalised)
};

TextDifference classify_text(const std::string& a, const std::string& b) {
    TextDifference d;
    std::string na = normalize_device_index(a), nb = normalize_device_index(b);
    if (na == nb) {
        d.kind = "device_index";
        d.verdict.effect = Effect::none;
        d.verdict.why = "the same once the device index is normalised";
        auto lines = inductor::line_diff(a, b);
        for (const auto& l : lines) {
            if (l.op == inductor::LineOp::removed && d.a_line.empty()) d.a_line = l.text;
            if (l.op == inductor::LineOp::added && d.b_line.empty()) d.b_line = l.text;
        }
    } else {
        for (const auto& l : inductor::line_diff(na, nb)) {
            if (l.op == inductor::LineOp::removed && d.a_line.empty()) d.a_line = l.text;
            if (l.op == inductor::LineOp::added && d.b_line.empty()) d.b_line = l.text;
        }
        std::string both = d.a_line + "\n" + d.b_line;
        if (mentions(both, {"_c10d_functional", "group_name", "ProcessGroup", "process_group"})) {
            d.kind = "process_group";
            d.verdict.effect = Effect::none;
            d.verdict.why = "a process-group name: another key for the same computation";
        } else if (mentions(both, {"rank"})) {
            d.kind = "rank";
            d.verdict.effect = Effect::maybe_numerics;
            d.verdict.why = "a rank number is part of this rank's graph";
        } else {
            d.kind = "other";
            d.verdict.effect = Effect::maybe_numerics;
            d.verdict.why = "the text differs beyond the device index";
        }
    }
    std::string a_ex = excerpt(d.a_line, d.b_line), b_ex = excerpt(d.b_line, d.a_line);
    d.a_line = std::move(a_ex);
    d.b_line = std::move(b_ex);
    return d;
}

void take_worse(Verdict& into, const Verdict& v) {
    if (into.why.empty() || static_cast<int>(v.effect) > static_cast<int>(into.effect)) into = v;
}

// ---- keys ----
std::string event_id(const GraphKeyEvent& e, int occurrence) {
    return e.cache + " " + e.compile_id + " #" + std::to_string(occurrence + 1);
}

void compare_keys(const std::vector<const LoadedRank*>& group, GraphComparison& out) {
    std::vector<std::map<std::string, const GraphKeyEvent*>> by_id(group.size());
    std::vector<std::string> order;
    for (size_t r = 0; r < group.size(); ++r) {
        std::map<std::string, int> seen;
        for (const auto& e : group[r]->keys) {
            if (e.key.empty()) continue;
            std::string id = event_id(e, seen[e.cache + " " + e.compile_id]++);
            by_id[r].emplace(id, &e);
            if (r == 0) order.push_back(id);
        }
    }
    for (const auto& id : order) {
        std::vector<const GraphKeyEvent*> evs;
        for (size_t r = 0; r < group.size(); ++r)
            if (auto it = by_id[r].find(id); it != by_id[r].end()) evs.push_back(it->second);
        if (evs.size() != group.size()) continue;
        ++out.keys;
        if (std::all_of(evs.begin(), evs.end(), [&](const auto* e) { return e->key == evs.front()->key; })) continue;
        ++out.keys_differ;
        GraphDivergence g;
        g.kind = "key";
        g.what = id;
        for (const auto* e : evs) g.ids.push_back(e->key);
        std::vector<std::string> order_c;
        std::map<std::string, ComponentDifference> comps;
        for (size_t r = 1; r < group.size(); ++r) {
            auto diff = inductor::diff_components(evs.front()->components, evs[r]->components);
            for (const auto& c : diff.changed) {
                auto td = classify_text(c.a, c.b);
                auto [it, fresh] = comps.try_emplace(c.component);
                if (fresh) {
                    order_c.push_back(c.component);
                    it->second.component = c.component;
                    it->second.values.resize(group.size());
                    it->second.values[0] = td.a_line;
                    it->second.kind = td.kind;
                }
                it->second.values[r] = td.b_line;
                take_worse(it->second.verdict, td.verdict);
                if (td.kind != "device_index") it->second.kind = td.kind;
            }
            for (const auto& name : diff.only_a)
                take_worse(g.verdict, {Effect::maybe_numerics, "only " + group.front()->label + " has " + name});
            for (const auto& name : diff.only_b)
                take_worse(g.verdict, {Effect::maybe_numerics, "only " + group[r]->label + " has " + name});
        }
        for (const auto& name : order_c) {
            auto& c = comps[name];
            if (c.kind == "device_index") ++g.device_index_only;
            take_worse(g.verdict, c.verdict);
            g.components.push_back(std::move(c));
        }
        out.differ.push_back(std::move(g));
    }
}

// ---- output code ----
struct Section {
    std::string name, text;
    std::string key;  // the name without its number, and its occurrence: kernels renumber when one is added
};

// A kernel's text with its own name (which renumbers when the graph's kernels change) replaced.
std::string without_own_name(std::string text, const std::string& name) {
    if (name == "wrapper" || name.empty()) return text;
    for (std::size_t at = 0; (at = text.find(name, at)) != std::string::npos;) {
        text.replace(at, name.size(), "KERNEL");
        at += 6;
    }
    return text;
}

std::string kernel_stem(const std::string& name) {
    auto us = name.rfind('_');
    if (us == std::string::npos || us + 1 == name.size() ||
        name.find_first_not_of("0123456789", us + 1) != std::string::npos)
        return name;
    return name.substr(0, us);
}

// The module's Triton kernel sources (async_compile.triton('NAME', '''...''')) and the rest, the
// wrapper, with each kernel body cut out.
std::vector<Section> split_module(const std::string& text) {
    std::vector<Section> kernels;
    std::string wrapper;
    std::size_t at = 0;
    const std::string open = "async_compile.triton('";
    while (true) {
        std::size_t k = text.find(open, at);
        if (k == std::string::npos) break;
        std::size_t name_end = text.find('\'', k + open.size());
        std::size_t body = name_end == std::string::npos ? name_end : text.find("'''", name_end + 1);
        std::size_t end = body == std::string::npos ? body : text.find("'''", body + 3);
        if (end == std::string::npos) break;
        wrapper += text.substr(at, body + 3 - at);
        kernels.push_back(
            {text.substr(k + open.size(), name_end - k - open.size()), text.substr(body + 3, end - body - 3), {}});
        at = end;
    }
    wrapper += text.substr(at);
    std::map<std::string, int> seen;
    for (auto& k : kernels) {
        std::string stem = kernel_stem(k.name);
        k.key = stem + "#" + std::to_string(++seen[stem]);
    }
    kernels.insert(kernels.begin(), Section{"wrapper", std::move(wrapper), "wrapper"});
    return kernels;
}

// A template kernel's config: its config_args and the decorator's num_stages and num_warps.
std::optional<Json> template_config(const std::string& body) {
    if (body.find("@triton_heuristics.template(") == std::string::npos) return std::nullopt;
    Json cfg = Json::object();
    auto args = timings::py_dict_after(body, "'config_args':");
    if (!args) return std::nullopt;
    if (*args) cfg = std::move(**args);
    const std::string head = body.substr(0, body.find("@triton.jit"));
    for (const char* k : {"num_stages", "num_warps"}) {
        std::string tag = std::string("\n") + k + "=";
        auto at = head.find(tag);
        if (at == std::string::npos) continue;
        cfg[k] = timings::py_scalar(head.substr(at + tag.size(), head.find(',', at) - at - tag.size()));
    }
    return cfg;
}

void compare_modules(const std::vector<const LoadedRank*>& group, GraphComparison& out) {
    std::vector<std::map<std::string, const OutputModule*>> by_id(group.size());
    std::vector<std::string> order;
    for (size_t r = 0; r < group.size(); ++r) {
        int n = 0;
        for (const auto& m : group[r]->outputs) {
            std::string id = m.aot_id.empty() ? "#" + std::to_string(++n) : m.aot_id;
            if (by_id[r].emplace(id, &m).second && r == 0) order.push_back(id);
        }
    }
    for (const auto& id : order) {
        std::vector<const OutputModule*> mods;
        for (size_t r = 0; r < group.size(); ++r)
            if (auto it = by_id[r].find(id); it != by_id[r].end()) mods.push_back(it->second);
        if (mods.size() != group.size()) continue;
        ++out.modules;
        if (std::all_of(mods.begin(), mods.end(), [&](const auto* m) { return m->text == mods.front()->text; }))
            continue;
        ++out.modules_differ;
        GraphDivergence g;
        g.kind = "output_code";
        g.what = "output code " + id;
        for (const auto* m : mods) g.ids.push_back(m->path);
        std::vector<std::vector<Section>> sections;
        for (const auto* m : mods) sections.push_back(split_module(m->text));
        std::vector<std::string> config_differs;  // kernels whose launch grid follows their config
        std::vector<bool> other_kernels;          // ranks whose wrapper launches other kernels
        // Another set of kernels: another fusion (a cuBLAS winner takes no epilogue, a template does).
        {
            CodeDifference kd{"kernels", "other", std::vector<std::string>(group.size()), {}};
            other_kernels.assign(group.size(), false);
            auto names_of = [](const std::vector<Section>& ss) {
                std::vector<std::string> n;
                for (size_t i = 1; i < ss.size(); ++i) n.push_back(ss[i].key);
                std::sort(n.begin(), n.end());
                return n;
            };
            const auto ref = names_of(sections.front());
            for (size_t r = 1; r < group.size(); ++r) {
                const auto mine = names_of(sections[r]);
                if (mine == ref) continue;
                other_kernels[r] = true;
                std::vector<std::string> only_ref, only_mine;
                std::set_difference(ref.begin(), ref.end(), mine.begin(), mine.end(), std::back_inserter(only_ref));
                std::set_difference(mine.begin(), mine.end(), ref.begin(), ref.end(), std::back_inserter(only_mine));
                std::string v =
                    "has " + std::to_string(only_mine.size()) + " kernels " + group.front()->label + " lacks";
                for (size_t i = 0; i < only_mine.size() && i < 3; ++i) v += (i ? ", " : ": ") + only_mine[i];
                if (only_mine.size() > 3) v += ", …";
                v += "; lacks " + std::to_string(only_ref.size()) + " of " + group.front()->label + "'s";
                kd.values[r] = v;
                kd.verdict.effect = Effect::numerics;
                kd.verdict.why = "other kernels: another fusion of the graph's operations";
            }
            if (!kd.verdict.why.empty()) {
                kd.values[0] = std::to_string(ref.size()) + " kernels";
                take_worse(g.verdict, kd.verdict);
                g.code.push_back(std::move(kd));
            }
        }
        // Kernels first, the wrapper last: a launch line of a kernel whose config differs follows from it.
        std::vector<Section> ordered(sections.front().begin() + 1, sections.front().end());
        ordered.push_back(sections.front().front());
        for (const auto& sec : ordered) {
            std::vector<const Section*> same_name;
            for (const auto& ss : sections) {
                auto it = std::find_if(ss.begin(), ss.end(), [&](const Section& x) { return x.key == sec.key; });
                same_name.push_back(it == ss.end() ? nullptr : &*it);
            }
            CodeDifference cd;
            cd.section = sec.name;
            cd.values.resize(group.size());
            bool any = false, beyond_index = false;
            std::vector<std::optional<Json>> cfgs;
            for (const auto* s : same_name) cfgs.push_back(s ? template_config(s->text) : std::nullopt);
            // Ranks without this kernel are named under "kernels"; the others' configs are compared.
            bool templ = cfgs.front().has_value(), differs = false;
            for (size_t r = 1; r < group.size(); ++r)
                if (same_name[r]) {
                    templ = templ && cfgs[r].has_value();
                    differs = differs || (cfgs[r] && cfgs.front() && *cfgs[r] != *cfgs.front());
                }
            if (templ && differs) {
                cd.kind = "config";
                std::vector<ChoiceConfig> configs;
                for (size_t r = 0; r < group.size(); ++r) {
                    if (!cfgs[r]) continue;
                    cd.values[r] = timings::config_summary(*cfgs[r]);
                    configs.push_back({"template", *cfgs[r], true});
                }
                cd.verdict = choices_effect(configs);
                config_differs.push_back(sec.name);
                g.code.push_back(std::move(cd));
                take_worse(g.verdict, g.code.back().verdict);
                continue;
            }
            for (size_t r = 1; r < group.size(); ++r) {
                if (!same_name[r]) continue;  // named under "kernels"
                if (same_name[r]->text == sec.text) continue;
                if (sec.name == "wrapper" && other_kernels[r]) continue;  // follows from "kernels"
                auto td = classify_text(without_own_name(sec.text, sec.name),
                                        without_own_name(same_name[r]->text, same_name[r]->name));
                if (td.kind == "device_index" && sec.name != same_name[r]->name) td.verdict.why += " (renumbered)";
                if (sec.name == "wrapper" && td.kind != "device_index") {
                    // A launch line of a kernel whose config differs follows from it.
                    bool derived = std::any_of(config_differs.begin(), config_differs.end(), [&](const auto& k) {
                        return td.a_line.find(k) != std::string::npos || td.b_line.find(k) != std::string::npos;
                    });
                    if (derived) {
                        td.kind = "config";
                        td.verdict.effect = Effect::speed;
                        td.verdict.why = "a launch grid of a kernel whose tile differs";
                    }
                }
                any = true;
                if (td.kind == "device_index") continue;
                beyond_index = true;
                if (cd.values[0].empty()) cd.values[0] = td.a_line;
                cd.values[r] = td.b_line;
                if (cd.kind.empty() || td.kind != "other") cd.kind = td.kind;
                take_worse(cd.verdict, td.verdict);
            }
            if (!any) continue;
            if (!beyond_index) {
                ++g.device_index_only;
                continue;
            }
            take_worse(g.verdict, cd.verdict);
            g.code.push_back(std::move(cd));
        }
        if (g.code.empty()) {
            ++out.modules_device_index_only;
            g.verdict.effect = Effect::none;
            g.verdict.why = "the same code once the device index is normalised";
        }
        out.differ.push_back(std::move(g));
    }
}

}  // namespace

GraphComparison compare_graphs(const std::vector<const LoadedRank*>& group) {
    GraphComparison out;
    if (group.size() < 2) return out;
    compare_keys(group, out);
    compare_modules(group, out);
    return out;
}

}  // namespace kiln::ranks
