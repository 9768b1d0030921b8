#include "timings/graph_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>

#include "timings/choice_name.hpp"
#include "timings/kernel_files.hpp"
#include "timings/text_file.hpp"
#include "util/path_component.hpp"

namespace kiln::timings {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

bool valid_ms(const std::optional<double>& ms) { return ms && std::isfinite(*ms) && *ms >= 0; }

// Order-free (the timing cache's module and a stderr table list the same keys in other orders).
nlohmann::json without_hints(const ojson& p) {
    nlohmann::json out = nlohmann::json::parse(p.dump(), nullptr, false);
    if (out.is_object()) out.erase("size_hints");
    return out;
}

// "triton_tem_fused_add_mm_relu_0" -> {"add", "mm", "relu"}.
std::vector<std::string> name_ops(const std::string& name) {
    std::vector<std::string> out;
    std::size_t at = name.find("_fused_");
    if (at == std::string::npos) return out;
    std::string rest = name.substr(at + 7);
    if (auto us = rest.rfind('_');
        us != std::string::npos && rest.find_first_not_of("0123456789", us + 1) == std::string::npos)
        rest = rest.substr(0, us);
    std::size_t start = 0;
    while (start <= rest.size() && out.size() < 64) {
        std::size_t us = rest.find('_', start);
        std::string tok = rest.substr(start, us == std::string::npos ? std::string::npos : us - start);
        if (!tok.empty()) out.push_back(tok);
        if (us == std::string::npos) break;
        start = us + 1;
    }
    return out;
}

// "M = 512", "N = 512", "K = 512" in a template's body -> {"512x512", "512x512"} (A is MxK, B is KxN).
std::vector<std::string> template_problem(const std::string& text) {
    std::smatch m;
    std::string M, N, K;
    static const std::regex dim(R"(\n\s+([MNK]) = (\d+)\n)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), dim); it != std::sregex_iterator(); ++it) {
        std::string d = (*it)[1], v = (*it)[2];
        if (d == "M" && M.empty()) M = v;
        if (d == "N" && N.empty()) N = v;
        if (d == "K" && K.empty()) K = v;
    }
    if (M.empty() || N.empty() || K.empty()) return {};
    return {M + "x" + K, K + "x" + N};
}

// The .best_config beside a kernel module that belongs to it: the only module of its folder owns
// every config there; otherwise the config's triton_cache_hash names the Triton dir of this kernel.
void join_best_config(const fs::path& root, GraphKernel& k) {
    std::error_code ec;
    fs::path dir = fs::path(k.module_path).parent_path();
    std::size_t modules = 0;
    std::vector<fs::path> configs;
    for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        if (it->path().extension() == ".py") ++modules;
        if (it->path().extension() == ".best_config") configs.push_back(it->path());
    }
    std::sort(configs.begin(), configs.end());
    for (const auto& c : configs) {
        auto text = read_text_file(c, 1u << 20);
        if (!text) continue;
        ojson j = ojson::parse(*text, nullptr, false);
        if (!j.is_object()) continue;
        bool owner = modules == 1;
        if (!owner && j.contains("triton_cache_hash") && j["triton_cache_hash"].is_string()) {
            std::string hash = j["triton_cache_hash"];
            if (!is_plain_file_name(hash) || !is_plain_file_name(k.ref.name)) continue;  // names from files: no paths
            for (fs::directory_iterator dev(root / "triton", ec); !ec && dev != fs::directory_iterator();
                 dev.increment(ec))
                owner = owner || fs::exists(dev->path() / hash / (k.ref.name + ".json"), ec);
        }
        if (!owner) continue;
        k.best_config_path = c.string();
        k.best_config = std::move(j);
        return;
    }
    if (!configs.empty()) k.note = "a .best_config beside the module whose owner is not provable without torch_key";
}

std::string entry_device(const inductor::GraphEntry& entry) {
    static const std::regex dev(R"(system_info\[device\]: \{'name': '([^']*)'\})");
    for (const auto& l : entry.debug_lines()) {
        std::smatch m;
        if (std::regex_search(l, m, dev)) return m[1];
    }
    return {};
}

}  // namespace

std::optional<AutotuneMatch> find_template_choice(const TimingSet& set, const std::string& op_name, const ojson& params,
                                                  const std::vector<std::string>& problem, const std::string& device) {
    std::optional<AutotuneMatch> best;
    const nlohmann::json want = without_hints(params);
    for (std::size_t oi = 0; oi < set.ops.size(); ++oi) {
        const Op& op = set.ops[oi];
        if (op.op != op_name) continue;
        if (problem.size() == 2 && op.sizes.size() >= 2 &&
            !std::equal(problem.begin(), problem.end(), op.sizes.end() - 2))
            continue;
        for (std::size_t ci = 0; ci < op.choices.size(); ++ci) {
            const Choice& c = op.choices[ci];
            if (c.name.rfind("triton_", 0) != 0 || without_hints(c.params) != want) continue;
            AutotuneMatch m;
            m.op = op.op;
            m.inputs = op.inputs;
            m.device = op.device;
            m.choice = c.name;
            m.display = choice_display_name(c);
            m.ms = c.ms;
            m.source = op.source;
            m.aliases = c.aliases;
            m.op_index = oi;
            m.choice_index = ci;
            std::vector<const Choice*> ranked;
            for (const Choice& o : op.choices)
                if (valid_ms(o.ms)) ranked.push_back(&o);
            std::stable_sort(ranked.begin(), ranked.end(), [](auto* a, auto* b) { return *a->ms < *b->ms; });
            m.valid = ranked.size();
            for (std::size_t i = 0; i < ranked.size(); ++i)
                if (ranked[i] == &c) m.rank = i + 1;
            const Choice* other =
                m.rank == 1 ? (ranked.size() > 1 ? ranked[1] : nullptr) : (ranked.empty() ? nullptr : ranked[0]);
            if (other) {
                m.next_choice = other->name;
                m.next_display = choice_display_name(*other);
                m.next_ms = other->ms;
            }
            // Several timing caches (one per device) may hold the same choice: the entry's device wins.
            if (!best || (best->device != device && op.device == device)) best = std::move(m);
        }
    }
    return best;
}

Result<GraphKernels> graph_kernels(const fs::path& root, const inductor::GraphEntry& entry, const TimingSet* set) {
    GraphKernels out;
    std::string source;
    std::optional<std::string> key = entry.cache_key();
    std::string module = key ? kernel_module_for_key(root, *key) : std::string();
    if (!module.empty()) {
        KILN_TRY(source, read_text_file(module));
        out.output_module = module;
    } else if (auto src = entry.source_code()) {
        source = std::string(*src);
        out.output_module =
            "(the entry's source_code: " + (key ? *key + ".py" : std::string("no cache_key")) + " is not in the root)";
    } else {
        return make_error(Errc::not_found, "the entry has neither an output module in the root nor source_code",
                          entry.origin(), "is this an fxgraph entry? (AOT entries: show their forward key)");
    }
    KILN_TRY(inductor::OutputCode code, inductor::parse_output_code(source));
    const std::string device = entry_device(entry);
    for (auto& ref : code.kernels) {
        GraphKernel k;
        k.ref = ref;
        if (ref.kind == inductor::KernelKind::triton) {
            std::error_code ec;
            for (const std::string& rel : {ref.module_rel_path(), ref.kernel_path})
                if (k.module_path.empty() && !rel.empty() && fs::is_regular_file(root / rel, ec))
                    k.module_path = (root / rel).string();
            if (k.module_path.empty()) k.note = "kernel module not in the root";
        }
        if (!k.module_path.empty()) {
            if (auto info = read_kernel_module_info(k.module_path); info.ok()) k.params = info->params;
            join_best_config(root, k);
        }
        if (ref.triton_category() == "template" && !k.module_path.empty()) {
            std::vector<std::string> ops = name_ops(ref.name);
            for (const auto& o : ops) {
                if (o != "mm" && o != "addmm" && o != "bmm" && o != "convolution") continue;
                for (const auto& f : ops)
                    if (f != o) k.fused_ops.push_back(f);
                if (!set) break;
                auto text = read_text_file(k.module_path);
                k.autotune = find_template_choice(*set, o, k.params,
                                                  text ? template_problem(*text) : std::vector<std::string>{}, device);
                if (!k.autotune) k.note = "no autotune row with this config (timing cache missing or rewritten)";
                break;
            }
        }
        out.kernels.push_back(std::move(k));
    }
    return out;
}

std::optional<fs::path> entry_root(const fs::path& entry_file) {
    std::error_code ec;
    fs::path p = fs::absolute(entry_file, ec).lexically_normal();
    for (int i = 0; i < 5 && p.has_parent_path() && p != p.parent_path(); ++i) {
        p = p.parent_path();
        if (p.filename() == "fxgraph" || p.filename() == "aotautograd") return p.parent_path();
    }
    return std::nullopt;
}

namespace {
std::string pct_text(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%+.1f%%", v);
    return buf;
}
}  // namespace

std::string describe_autotune(const GraphKernel& k) {
    if (!k.autotune) return {};
    const AutotuneMatch& a = *k.autotune;
    std::string s = "autotune of " + a.op + "(" + a.inputs + ")" + (a.device.empty() ? "" : " on " + a.device);
    const std::string of = " of " + std::to_string(a.valid) + " valid choices";
    if (a.rank == 1) {
        s += " chose this template, " + a.display + ": " + (a.ms ? ms_text(*a.ms) : "no time") + ", fastest" + of;
        if (a.ms && a.next_ms && *a.ms > 0)
            s += " (runner-up " + a.next_display + ": " + ms_text(*a.next_ms) + ", " +
                 pct_text((*a.next_ms / *a.ms - 1) * 100) + ")";
        return s;
    }
    // Another choice won the op-only benchmark; the graph still runs this template.
    s += " chose " + (a.next_display.empty() ? std::string("another choice") : a.next_display);
    if (a.next_ms) s += " (" + ms_text(*a.next_ms) + ")";
    s += "; this template, " + a.display + " (" + (a.ms ? ms_text(*a.ms) : "no time");
    if (a.rank > 0) s += ", rank " + std::to_string(a.rank) + of;
    if (a.ms && a.next_ms && *a.next_ms > 0) s += ", " + pct_text((*a.ms / *a.next_ms - 1) * 100);
    s += "), runs ";
    if (k.fused_ops.empty()) return s + "although it is not autotune's choice";
    std::string ops;
    for (const auto& o : k.fused_ops) ops += (ops.empty() ? "" : ", ") + o;
    return s + "because Inductor fused the epilogue (" + ops + ") into it";
}

ojson to_json(const GraphKernels& g) {
    ojson out;
    out["output_module"] = g.output_module;
    out["kernels"] = ojson::array();
    for (const auto& k : g.kernels) {
        ojson j;
        j["name"] = k.ref.name;
        j["kind"] = std::string(inductor::kernel_kind_name(k.ref.kind));
        j["category"] = std::string(k.ref.triton_category());
        j["launches"] = k.ref.launches;
        j["module"] = k.module_path;
        j["params"] = k.params;
        j["best_config"] = k.best_config_path.empty() ? ojson(nullptr)
                                                      : ojson{{"path", k.best_config_path}, {"config", k.best_config}};
        j["fused_ops"] = k.fused_ops;
        if (k.autotune) {
            const auto& a = *k.autotune;
            j["autotune"] = {{"op", a.op},
                             {"inputs", a.inputs},
                             {"device", a.device},
                             {"choice", a.choice},
                             {"display", a.display},
                             {"ms", a.ms ? ojson(*a.ms) : ojson(nullptr)},
                             {"rank", a.rank},
                             {"valid_choices", a.valid},
                             {"other", a.next_choice},
                             {"other_display", a.next_display},
                             {"other_ms", a.next_ms ? ojson(*a.next_ms) : ojson(nullptr)},
                             {"source", a.source},
                             {"aliases", a.aliases}};
        } else {
            j["autotune"] = nullptr;
        }
        if (k.autotune) j["autotune"]["verdict"] = describe_autotune(k);
        if (!k.note.empty()) j["note"] = k.note;
        out["kernels"].push_back(std::move(j));
    }
    return out;
}

}  // namespace kiln::timings
