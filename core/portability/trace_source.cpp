// A fingerprint out of TORCH_TRACE logs: the key components of every cache hit/miss event (computed
// by that process for its own lookups), the versions in compilation_metrics, and, only from
// compiles that missed (on a hit torch logs the stored code of the compiling machine), the GPU of
// fx_graph_runnable and the DeviceProperties in the output code.
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "portability/cache_files.hpp"
#include "portability/key_env.hpp"
#include "portability/sources.hpp"
#include "trace/trace_log.hpp"
#include "util/text_scan.hpp"

namespace kiln::portability {

namespace {

using nlohmann::json;

struct Seen {
    EnvComponent first;
    std::map<std::string, std::size_t> values;  // hash (or value) -> events
};

struct TraceScan {
    std::map<std::string, Seen> components;  // by name, in name order
    std::vector<std::string> names_in_order;
    std::size_t events = 0;
    std::string last_fx_state;  // provenance of the next output code / runnable
    std::map<std::string, std::string> facts;
    std::map<std::string, std::string> fact_source;
    std::set<std::string> env_vars;

    void fact(const std::string& name, const std::string& value, const std::string& source) {
        if (value.empty() || facts.count(name)) return;
        facts[name] = value;
        fact_source[name] = source;
    }
};

// fx_graph_cache_hit|miss, aotautograd_cache_hit|miss: the events whose payload has components.
bool cache_artifact(std::string_view name) {
    for (std::string_view prefix : {"fx_graph_cache_", "aotautograd_cache_"}) {
        if (name.substr(0, prefix.size()) != prefix) continue;
        std::string_view state = name.substr(prefix.size());
        return state == "hit" || state == "miss";
    }
    return false;
}

void on_cache_event(TraceScan& s, const json& payload, const std::string& artifact, const std::string& where) {
    if (artifact.rfind("fx_graph_cache_", 0) == 0) s.last_fx_state = artifact.substr(15);
    auto it = payload.find("components");
    if (it == payload.end() || !it->is_array() || it->empty()) return;
    std::vector<std::string> lines;
    for (const auto& c : *it)
        if (c.is_string()) lines.push_back(c.get<std::string>());
    auto comps = inductor::parse_debug_lines(lines);
    if (!comps) return;
    ++s.events;
    KeyEnv k = key_env(*comps, "trace " + where);
    for (const auto& c : k.env.components) {
        auto [pos, fresh] = s.components.try_emplace(c.name, Seen{c, {}});
        if (fresh) s.names_in_order.push_back(c.name);
        pos->second.values[c.hash.empty() ? c.value : c.hash]++;
    }
}

void on_metrics(TraceScan& s, const json& m, const std::string& where) {
    auto str = [&](const char* k) {
        return m.contains(k) && m[k].is_string() ? m[k].get<std::string>() : std::string();
    };
    s.fact(std::string(names::torch), str("pytorch_version"), "trace " + where);
    s.fact(std::string(names::torch_cuda), str("cuda_version"), "trace " + where);
    s.fact(std::string(names::triton), str("triton_version"), "trace " + where);
    std::string py = str("python_version");
    s.fact(std::string(names::python), py.substr(0, py.find(' ')), "trace " + where);
}

// `^os\.environ\['([^']+)'\] = '([^']*)'$`: "KEY=value" of an environment line of fx_graph_runnable.
std::optional<std::string> runnable_env_var(std::string_view line) {
    constexpr std::string_view head = "os.environ['";
    const std::size_t key_end = line.find('\'', head.size());
    if (!scan::has_at(line, 0, head) || key_end == std::string_view::npos || key_end == head.size() ||
        !scan::has_at(line, key_end, "'] = '"))
        return std::nullopt;
    const std::size_t value = key_end + 6;
    if (line.find('\'', value) != line.size() - 1) return std::nullopt;
    return std::string(line.substr(head.size(), key_end - head.size())) + "=" +
           std::string(line.substr(value, line.size() - 1 - value));
}

// `^# (.+) : (\d+) ?$`: "NVIDIA H100 80GB HBM3 x1" of a GPU line of fx_graph_runnable.
std::optional<std::string> runnable_gpu(std::string_view line) {
    const std::size_t end = scan::has_at(line, line.size() - 1, " ") ? line.size() - 1 : line.size();
    std::size_t digits = end;
    while (digits > 0 && scan::is_digit(line[digits - 1])) --digits;
    if (!scan::has_at(line, 0, "# ") || digits == end || digits < 6 || !scan::has_at(line, digits - 3, " : "))
        return std::nullopt;
    const std::string_view name = line.substr(2, digits - 5);
    if (name.find_first_of("\r\n") != std::string_view::npos) return std::nullopt;  // '.' takes neither
    return std::string(name) + " x" + std::string(line.substr(digits, end - digits));
}

void on_runnable(TraceScan& s, const std::string& text, const std::string& where) {
    bool gpu_section = false;
    std::string gpus;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        pos = nl == std::string::npos ? text.size() : nl + 1;
        if (auto env = runnable_env_var(line)) s.env_vars.insert(*env);
        if (line.rfind("# GPU Hardware Info:", 0) == 0) {
            gpu_section = true;
            continue;
        }
        if (gpu_section) {
            if (auto gpu = runnable_gpu(line)) gpus += (gpus.empty() ? "" : "; ") + *gpu;
            else gpu_section = false;
        }
    }
    s.fact(std::string(names::devices), gpus, "trace " + where + " (fx_graph_runnable of a miss)");
}

// Output code holds the DeviceProperties and backend hash its kernels were generated for. On a
// miss that is this process's GPU; on a hit it is the stored code of a machine whose key had the
// same system_info[device] name, so the same GPU model: its properties hold for this GPU too.
void on_output_code(TraceScan& s, const std::string& code, const std::string& where, bool hit) {
    std::string src =
        "trace " + where +
        (hit ? " (output code of a hit: generated for the same device name)" : " (output code of a miss)");
    if (!hit) {
        if (std::string hash = find_backend_hash(code, 64); !hash.empty())
            s.fact(std::string(names::backend_hash), hash, src);
    }
    auto props = find_device_properties(code);
    if (!props || props->type == "cpu") return;
    s.fact(std::string(names::compute_capability), props->cc, src);
    s.fact(std::string(names::sm_count), props->multi_processor_count, src);
    s.fact(std::string(names::warp_size), props->warp_size, src);
}

Status scan_log(const std::filesystem::path& log, TraceScan& s) {
    return trace::for_each_trace_record(log, [&](const trace::TraceRecord& r) {
        const std::string& h = r.header_json;
        bool artifact = h.find("\"artifact\"") != std::string::npos;
        bool metrics = h.rfind("{\"compilation_metrics\"", 0) == 0;
        bool code = h.rfind("{\"inductor_output_code\"", 0) == 0;
        if (!artifact && !metrics && !code) return true;
        std::string where = log.filename().string() + ":" + std::to_string(r.line);
        if (code) {
            if (!s.last_fx_state.empty()) on_output_code(s, r.payload, where, s.last_fx_state == "hit");
            return true;
        }
        json meta = json::parse(h, nullptr, false);
        if (meta.is_discarded() || !meta.is_object()) return true;
        if (metrics) {
            json m =
                r.payload.empty() ? meta.value("compilation_metrics", json()) : json::parse(r.payload, nullptr, false);
            if (m.is_object()) on_metrics(s, m, where);
            return true;
        }
        const json& art = meta["artifact"];
        std::string name =
            art.is_object() && art.contains("name") && art["name"].is_string() ? art["name"].get<std::string>() : "";
        if (cache_artifact(name)) {
            json p = json::parse(r.payload, nullptr, false);
            if (p.is_object()) on_cache_event(s, p, name, where);
        } else if (name == "fx_graph_runnable" && s.last_fx_state == "miss") {
            on_runnable(s, r.payload, where);
        }
        return true;
    });
}

}  // namespace

Result<Fingerprint> fingerprint_from_trace(const std::filesystem::path& path) {
    KILN_TRY(auto files, trace::trace_log_files(path));
    if (files.empty())
        return make_error(Errc::not_found, "no TORCH_TRACE logs in the directory", path.string(),
                          "pass the directory TORCH_TRACE pointed to on the target machine");
    TraceScan s;
    for (const auto& f : files) KILN_CHECK(scan_log(f, s));
    Fingerprint fp;
    fp.origin = "trace " + path.string();
    for (const auto& name : s.names_in_order) {
        const Seen& seen = s.components.at(name);
        if (seen.values.size() == 1) {
            fp.set(seen.first);
            continue;
        }
        std::string counts;
        for (const auto& [v, n] : seen.values)
            counts += (counts.empty() ? "" : "; ") + std::to_string(n) + " with " + v.substr(0, 60);
        fp.mark_unknown(name, "differs between the trace's compiles (" + counts + "): several processes or ranks?");
    }
    if (s.events == 0) {
        for (auto n : {names::device, names::version, names::system_hash, names::torch_version, names::cxx})
            fp.mark_unknown(std::string(n),
                            "the trace has no cache hit/miss event with key components (caches off, or only bypasses)");
    } else {
        fp.notes.push_back(std::to_string(s.events) + " cache events with key components in " +
                           std::to_string(files.size()) + " log file(s)");
    }
    for (const auto& [name, value] : s.facts)
        fp.set({name, value, "", scope_of(name), false, false, false, false, s.fact_source[name]});
    if (!fp.find(names::pickle_protocol))
        if (const EnvComponent* py = fp.find(names::python)) {
            int minor = 0;
            if (py->value.rfind("3.", 0) == 0) minor = std::atoi(py->value.c_str() + 2);
            if (minor >= 8)
                fp.set({std::string(names::pickle_protocol), minor >= 14 ? "5" : "4", "", Scope::install, true, false,
                        false, false, py->source + " (Python " + py->value + ")"});
        }
    if (!s.env_vars.empty()) {
        std::string vars;
        for (const auto& v : s.env_vars) vars += (vars.empty() ? "" : "; ") + v;
        fp.set({std::string(names::env_vars), vars, "", Scope::environment, false, false, false, false,
                "trace (fx_graph_runnable of a miss)"});
    }
    if (!fp.find(names::compute_capability))
        fp.mark_unknown(std::string(names::compute_capability), "no GPU output code of a cache miss in the trace");
    return fp;
}

}  // namespace kiln::portability
