#include "timings/graph_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string_view>

#include "inductor/beneath_root.hpp"
#include "timings/choice_name.hpp"
#include "timings/kernel_files.hpp"
#include "timings/text_file.hpp"
#include "util/path_component.hpp"
#include "util/rel_path.hpp"
#include "util/text_scan.hpp"

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

// The dtype a Triton signature names ("*bf16") as the timing cache writes it ("bfloat16"); "" when unknown.
std::string torch_dtype_of_triton(std::string_view t) {
    if (!t.empty() && t.front() == '*') t.remove_prefix(1);
    static const std::pair<std::string_view, std::string_view> names[] = {
        {"bf16", "bfloat16"},    {"fp16", "float16"}, {"fp32", "float32"},
        {"fp64", "float64"},     {"i8", "int8"},      {"u8", "uint8"},
        {"i32", "int32"},        {"i64", "int64"},    {"fp8e4nv", "float8_e4m3fn"},
        {"fp8e5", "float8_e5m2"}};
    for (const auto& [k, v] : names)
        if (t == k) return std::string(v);
    return {};
}

// The value of `'NAME': '` ... `'` in a module's signature dict, e.g. arg_A's "*bf16".
std::string signature_type(const std::string& text, const std::string& name) {
    const std::string needle = "'" + name + "': '";
    std::size_t at = text.find(needle);
    if (at == std::string::npos) return {};
    at += needle.size();
    std::size_t end = text.find('\'', at);
    if (end == std::string::npos || end - at > 32) return {};
    return text.substr(at, end - at);
}

}  // namespace

TemplateProblem template_problem(const std::string& text) {
    TemplateProblem p;
    std::map<std::string, std::string> v;
    // Lines "    M = 512", "    stride_am = 512" in the template's body; scanned by hand (a module is
    // input-sized text) and only the first of each name counts.
    std::size_t pos = 0, lines = 0;
    while (pos < text.size() && ++lines < 200000) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + pos, end - pos);
        pos = end + 1;
        std::size_t i = line.find_first_not_of(" \t");
        if (i == std::string_view::npos || i == 0) continue;
        line.remove_prefix(i);
        std::size_t eq = line.find(" = ");
        if (eq == std::string_view::npos || eq > 16) continue;
        std::string_view name = line.substr(0, eq), value = line.substr(eq + 3);
        bool known = name == "M" || name == "N" || name == "K" || name.rfind("stride_", 0) == 0;
        if (!known || value.empty() || value.size() > 20 ||
            value.find_first_not_of("0123456789") != std::string_view::npos)
            continue;
        v.emplace(std::string(name), std::string(value));
    }
    auto get = [&](const char* n) {
        auto it = v.find(n);
        return it == v.end() ? std::string() : it->second;
    };
    const std::string M = get("M"), N = get("N"), K = get("K");
    if (!M.empty() && !N.empty() && !K.empty()) {
        p.a_size = M + "x" + K;
        p.b_size = K + "x" + N;
    }
    const std::string am = get("stride_am"), ak = get("stride_ak"), bk = get("stride_bk"), bn = get("stride_bn");
    if (!am.empty() && !ak.empty() && !bk.empty() && !bn.empty()) {
        const std::string aq = get("stride_aq"), bq = get("stride_bq");
        p.a_stride = (aq.empty() ? "" : aq + "x") + am + "x" + ak;
        p.b_stride = (bq.empty() ? "" : bq + "x") + bk + "x" + bn;
    }
    p.a_dtype = torch_dtype_of_triton(signature_type(text, "arg_A"));
    p.b_dtype = torch_dtype_of_triton(signature_type(text, "arg_B"));
    return p;
}

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
    return tail.size() <= s.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0 &&
           (tail.size() == s.size() || s[s.size() - tail.size() - 1] == 'x');
}

// "1024x384 bfloat16, 384x384 bfloat16" -> the dtype of input i ("" when not said).
std::string input_dtype(const std::string& inputs, std::size_t i) {
    std::size_t start = 0;
    for (std::size_t n = 0; n < i; ++n) {
        start = inputs.find(", ", start);
        if (start == std::string::npos) return {};
        start += 2;
    }
    std::size_t end = inputs.find(',', start);
    std::string part = inputs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::size_t sp = part.find(' ');
    if (sp == std::string::npos) return {};
    std::size_t word = part.find(' ', sp + 1);  // "8x8 float16 strides 1x8": the dtype alone
    return part.substr(sp + 1, word == std::string::npos ? std::string::npos : word - sp - 1);
}

}  // namespace

bool problem_fits(const TemplateProblem& p, const Op& op) {
    const std::size_t n = op.sizes.size();
    if (n < 2) return p.a_size.empty();
    if (!p.a_size.empty() && !(ends_with(op.sizes[n - 2], p.a_size) && ends_with(op.sizes[n - 1], p.b_size)))
        return false;
    if (!p.a_stride.empty() && op.strides.size() == n) {
        // The template writes the batch stride only for bmm; compare what it writes, from the end.
        if (!ends_with(op.strides[n - 2], p.a_stride) || !ends_with(op.strides[n - 1], p.b_stride)) return false;
    }
    auto differ = [](const std::string& a, const std::string& b) { return !a.empty() && !b.empty() && a != b; };
    return !differ(p.a_dtype, input_dtype(op.inputs, n - 2)) && !differ(p.b_dtype, input_dtype(op.inputs, n - 1));
}

namespace {

// Where graph_kernels reads: beneath a root by its path (show's root of an entry file, the inspector's),
// or through an opened root's descriptor (inductor/beneath_root), by paths relative to the root.
class RootFiles {
public:
    explicit RootFiles(const fs::path& root) : path_(&root) {}
    explicit RootFiles(const inductor::OpenedRoot& root) : opened_(&root) {}

    // The path reports name.
    std::string abs(std::string_view rel) const {
        return opened_ ? inductor::path_beneath(*opened_, rel) : (*path_ / rel).string();
    }
    bool is_regular(std::string_view rel) const {
        std::error_code ec;
        return opened_ ? inductor::is_regular_beneath(*opened_, rel) : fs::is_regular_file(*path_ / rel, ec);
    }
    bool exists(std::string_view rel) const {
        std::error_code ec;
        return opened_ ? inductor::is_regular_beneath(*opened_, rel) || inductor::is_directory_beneath(*opened_, rel)
                       : fs::exists(*path_ / rel, ec);
    }
    Result<std::string> read(std::string_view rel, std::uint64_t max_bytes) const {
        return opened_ ? inductor::read_beneath(*opened_, rel, max_bytes) : read_text_file(*path_ / rel, max_bytes);
    }
    // The names in the directory `rel` ("" for none that can be listed).
    std::vector<std::string> names(std::string_view rel) const {
        std::vector<std::string> out;
        if (opened_) {
            if (auto listed = inductor::list_beneath(*opened_, rel))
                for (auto& e : *listed) out.push_back(std::move(e.name));
            return out;
        }
        std::error_code ec;
        for (fs::directory_iterator it(*path_ / rel, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
            out.push_back(it->path().filename().string());
        return out;
    }
    // `<xx>/<key>.py` for a "c<51>" key, relative to the root; "" if no such file.
    std::string module_for_key(const std::string& key) const {
        if (key.size() != 52 || key[0] != 'c' || !is_plain_file_name(key)) return {};  // a key from a file: no path
        std::string rel = key.substr(1, 2) + "/" + key + ".py";
        return is_regular(rel) ? rel : std::string{};
    }

private:
    const fs::path* path_ = nullptr;
    const inductor::OpenedRoot* opened_ = nullptr;
};

std::string_view extension_of(std::string_view name) {
    const auto dot = name.rfind('.');
    return dot == std::string_view::npos || dot == 0 ? std::string_view() : name.substr(dot);
}

// The .best_config beside a kernel module (`module_rel`) that belongs to it: the only module of its
// folder owns every config there; otherwise the config's triton_cache_hash names the Triton dir of
// this kernel.
void join_best_config(const RootFiles& files, const std::string& module_rel, GraphKernel& k) {
    const std::string dir(rel_dir(module_rel));
    std::size_t modules = 0;
    std::vector<std::string> configs;  // relative to the root
    for (const auto& name : files.names(dir)) {
        if (extension_of(name) == ".py") ++modules;
        if (extension_of(name) == ".best_config") configs.push_back((dir.empty() ? "" : dir + "/") + name);
    }
    std::sort(configs.begin(), configs.end());
    for (const auto& c : configs) {
        auto text = files.read(c, 1u << 20);
        if (!text) continue;
        ojson j = ojson::parse(*text, nullptr, false);
        if (!j.is_object()) continue;
        bool owner = modules == 1;
        if (!owner && j.contains("triton_cache_hash") && j["triton_cache_hash"].is_string()) {
            std::string hash = j["triton_cache_hash"];
            if (!is_plain_file_name(hash) || !is_plain_file_name(k.ref.name)) continue;  // names from files: no paths
            for (const auto& dev : files.names("triton"))
                owner = owner || files.exists("triton/" + dev + "/" + hash + "/" + k.ref.name + ".json");
        }
        if (!owner) continue;
        k.best_config_path = files.abs(c);
        k.best_config = std::move(j);
        return;
    }
    if (!configs.empty()) k.note = "a .best_config beside the module whose owner is not provable without torch_key";
}

std::string entry_device(const inductor::GraphEntry& entry) {
    // `system_info\[device\]: \{'name': '([^']*)'\}`, the first line that has it.
    constexpr std::string_view head = "system_info[device]: {'name': '";
    for (const auto& l : entry.debug_lines()) {
        for (std::size_t at = l.find(head); at != std::string::npos; at = l.find(head, at + 1)) {
            const std::size_t name = at + head.size(), end = l.find('\'', name);
            if (end == std::string::npos) break;
            if (scan::has_at(l, end, "'}")) return l.substr(name, end - name);
        }
    }
    return {};
}

}  // namespace

std::optional<AutotuneMatch> find_template_choice(const TimingSet& set, const std::string& op_name, const ojson& params,
                                                  const TemplateProblem& problem, const std::string& device) {
    std::optional<AutotuneMatch> best;
    const nlohmann::json want = without_hints(params);
    for (std::size_t oi = 0; oi < set.ops.size(); ++oi) {
        const Op& op = set.ops[oi];
        if (op.op != op_name || !problem_fits(problem, op)) continue;
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

namespace {

Result<GraphKernels> kernels_of(const RootFiles& files, const inductor::GraphEntry& entry, const TimingSet* set) {
    GraphKernels out;
    std::string source;
    std::optional<std::string> key = entry.cache_key();
    const std::string module = key ? files.module_for_key(*key) : std::string();
    if (!module.empty()) {
        KILN_TRY(source, files.read(module, 64u << 20));
        out.output_module = files.abs(module);
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
        std::string module_rel;  // the kernel module, relative to the root
        if (ref.kind == inductor::KernelKind::triton) {
            for (const std::string& rel : {ref.module_rel_path(), ref.kernel_path})
                if (module_rel.empty() && !rel.empty() && files.is_regular(rel)) module_rel = rel;
            if (module_rel.empty()) k.note = "kernel module not in the root";
            else k.module_path = files.abs(module_rel);
        }
        std::optional<std::string> module_text;  // read once: the decorator's parameters, the template's problem
        if (!module_rel.empty()) {
            if (auto text = files.read(module_rel, 16u << 20); text.ok()) {
                if (auto info = parse_kernel_module_info(*text, k.module_path); info.ok()) k.params = info->params;
                module_text = std::move(*text);
            }
            join_best_config(files, module_rel, k);
        }
        if (ref.triton_category() == "template" && !module_rel.empty()) {
            std::vector<std::string> ops = name_ops(ref.name);
            for (const auto& o : ops) {
                if (o != "mm" && o != "addmm" && o != "bmm" && o != "baddbmm" && o != "convolution") continue;
                for (const auto& f : ops)
                    if (f != o) k.fused_ops.push_back(f);
                if (!set) break;
                k.autotune = find_template_choice(
                    *set, o, k.params, module_text ? template_problem(*module_text) : TemplateProblem{}, device);
                if (!k.autotune) k.note = "no autotune row with this config (timing cache missing or rewritten)";
                break;
            }
        }
        out.kernels.push_back(std::move(k));
    }
    return out;
}

}  // namespace

Result<GraphKernels> graph_kernels(const fs::path& root, const inductor::GraphEntry& entry, const TimingSet* set) {
    return kernels_of(RootFiles(root), entry, set);
}

Result<GraphKernels> graph_kernels(const inductor::OpenedRoot& root, const inductor::GraphEntry& entry,
                                   const TimingSet* set) {
    return kernels_of(RootFiles(root), entry, set);
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
