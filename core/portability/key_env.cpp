#include "portability/key_env.hpp"

#include "inductor/newer_torch.hpp"

#include <set>

#include "inductor/timing_cache_file.hpp"
#include "portability/py_value.hpp"
#include "util/python_json.hpp"

namespace kiln::portability {

namespace {

using inductor::KeyComponent;
using inductor::KeyComponentView;

std::vector<KeyComponentView> views_of(const std::vector<KeyComponent>& comps) {
    std::vector<KeyComponentView> v;
    v.reserve(comps.size());
    for (const auto& c : comps) v.push_back({c.hash, c.name, c.value});
    return v;
}

// The key components that belong to the environment rather than to the program.
constexpr std::string_view kEnvNames[] = {names::device,
                                          names::version,
                                          names::system_hash,
                                          names::torch_version,
                                          names::cache_key_tag,
                                          names::deterministic,
                                          names::matmul,
                                          names::default_device_index,
                                          names::cxx};

// "device(type='cuda', index=0)" occurrences in example_inputs values -> {"cuda:0"}.
void collect_devices(std::string_view value, std::set<std::string>& out) {
    constexpr std::string_view head = "device(type='";
    for (std::size_t pos = value.find(head); pos != std::string_view::npos; pos = value.find(head, pos + 1)) {
        std::size_t t = pos + head.size();
        std::size_t q = value.find('\'', t);
        if (q == std::string_view::npos) return;
        std::string type(value.substr(t, q - t));
        if (type == "cpu" || type == "meta") continue;
        constexpr std::string_view idx = ", index=";
        std::string index = "?";
        if (value.substr(q + 1, idx.size()) == idx) {
            std::size_t d = q + 1 + idx.size(), e = d;
            while (e < value.size() && value[e] >= '0' && value[e] <= '9') ++e;
            if (e > d) index = std::string(value.substr(d, e - d));
        }
        out.insert(type + ":" + index);
    }
}

// The first quoted absolute path in a printed value ("(None, '/opt/gcc/bin/g++')"), or empty.
std::string absolute_path_in(std::string_view v) {
    for (std::size_t i = 0; i + 1 < v.size(); ++i) {
        if ((v[i] != '\'' && v[i] != '"') || v[i + 1] != '/') continue;
        std::size_t end = v.find(v[i], i + 1);
        if (end == std::string_view::npos) return {};
        return std::string(v.substr(i + 1, end - i - 1));
    }
    return {};
}

std::string join(const std::set<std::string>& s) {
    std::string out;
    for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
    return out;
}

// "'key': 'value'" pairs of a printed dict of strings ("{'triton': '3.6.0…', 'cuda': '13.0'}"), in order.
std::optional<std::vector<std::pair<std::string, std::string>>> string_pairs(std::string_view v) {
    std::vector<std::pair<std::string, std::string>> out;
    if (v.size() < 2 || v.front() != '{' || v.back() != '}') return std::nullopt;
    std::size_t pos = 1;
    auto quoted = [&](std::string& s) {
        if (pos >= v.size() || v[pos] != '\'') return false;
        std::size_t end = v.find('\'', pos + 1);
        if (end == std::string_view::npos) return false;
        s = std::string(v.substr(pos + 1, end - pos - 1));
        pos = end + 1;
        return true;
    };
    while (pos < v.size() - 1) {
        std::string k, val;
        if (!quoted(k) || v.substr(pos, 2) != ": ") return std::nullopt;
        pos += 2;
        if (v.substr(pos, 4) == "None") {
            pos += 4;
            val = "\x01None";  // marks JSON null
        } else if (!quoted(val)) {
            return std::nullopt;
        }
        out.emplace_back(k, val);
        if (v.substr(pos, 2) == ", ") pos += 2;
    }
    return out;
}

}  // namespace

std::optional<std::string> recompute_system_hash(const Fingerprint& fp) {
    const EnvComponent* dev = fp.find(names::device);
    const EnvComponent* ver = fp.find(names::version);
    if (!dev || !ver) return std::nullopt;
    nlohmann::ordered_json system = nlohmann::ordered_json::object();
    if (!dev->absent || !ver->absent) {
        auto d = string_pairs(dev->value);
        auto v = string_pairs(ver->value);
        if (!d || !v) return std::nullopt;
        for (auto* part : {&*d, &*v}) {
            nlohmann::ordered_json obj = nlohmann::ordered_json::object();
            for (const auto& [k, val] : *part)
                obj[k] = val == "\x01None" ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(val);
            system[part == &*d ? "device" : "version"] = obj;
        }
    }
    return inductor::system_hash(system);
}

void check_system_hash(Fingerprint& fp) {
    const EnvComponent* h = fp.find(names::system_hash);
    auto computed = recompute_system_hash(fp);
    if (h && computed && *computed != h->value)
        fp.notes.push_back("system_info[hash] " + h->value + " is not the hash of system_info[device] and [version] (" +
                           *computed + "): written by another Inductor version?");
}

Scope scope_of(std::string_view n) {
    if (n == names::device || n == names::system_hash || n == names::compute_capability || n == names::sm_count ||
        n == names::warp_size || n == names::devices || n == names::cuda_driver)
        return Scope::machine;
    if (n == names::version || n == names::torch_version || n == names::pickle_protocol || n == names::torch_key ||
        n == names::backend_hash || n == names::torch || n == names::torch_cuda || n == names::triton ||
        n == names::python || n == names::cuda_toolkit)
        return Scope::install;
    if (n == names::deterministic || n == names::matmul || n == names::default_device_index || n == names::input_device)
        return Scope::process;
    return Scope::environment;  // cache_key_tag, inductor_config[...], environment variables
}

std::optional<int> detect_protocol(const std::vector<KeyComponentView>& comps) {
    for (const auto& c : comps) {
        if (c.name != names::system_hash && c.name != names::cache_key_tag) continue;
        for (int p : {4, 5, 3, 2})
            if (component_hash(PyValue::str(std::string(c.value)), p) == c.hash) return p;
    }
    return std::nullopt;
}

std::optional<int> detect_protocol(const std::vector<KeyComponent>& comps) { return detect_protocol(views_of(comps)); }

std::vector<KeyComponentView> component_views(const std::vector<std::string_view>& lines) {
    std::vector<KeyComponentView> out;
    out.reserve(lines.size());
    for (auto l : lines)
        if (auto v = inductor::split_component_view(l)) out.push_back(*v);
    return out;
}

KeyEnv key_env(const std::vector<KeyComponent>& comps, const std::string& source) {
    KeyEnv k = key_env(views_of(comps), source);
    return k;  // `config` views `comps`
}

std::string key_env_input(const std::vector<KeyComponentView>& comps) {
    std::string out;
    key_env_input(comps, out);
    return out;
}

void key_env_input(const std::vector<KeyComponentView>& comps, std::string& out) {
    out.clear();
    auto put = [&](std::string_view s) {
        out += std::to_string(s.size());
        out += ':';
        out += s;
    };
    std::set<std::string> devices;
    for (const auto& c : comps) {
        const bool inputs = std::string_view(c.name).starts_with("example_inputs[");
        if (inputs) collect_devices(c.value, devices);
        bool read = !inputs && c.name != "gm" && std::string_view(c.name).starts_with("inductor_config[");
        for (auto n : kEnvNames) read = read || c.name == n;
        if (read) {  // an environment component, a config value, the protocol's witnesses
            out += 'c';
            put(c.hash);
            put(c.name);
            put(c.value);
            continue;
        }
        // Any other component only for an absolute path in it (a hazard) and, for SeenKeys, a name torch
        // 2.11 does not write: a graph's own components (fx_kwargs, inputs_to_check...) leave no trace.
        if (!inputs && c.name != "gm")
            if (absolute_path_in(c.value).size()) {
                out += 'h';
                put(c.name);
                put(c.value);
            }
        if (!inductor::known_key_component(c.name)) {
            out += 'n';
            put(c.name);
        }
    }
    for (const auto& d : devices) {
        out += 'd';
        put(d);
    }
}

KeyEnv key_env(const std::vector<KeyComponentView>& comps, const std::string& source) {
    KeyEnv out;
    out.env.origin = source;
    std::set<std::string> devices;
    bool has_system_hash = false;
    for (const auto& c : comps) {
        if (std::string_view(c.name).starts_with("example_inputs[")) collect_devices(c.value, devices);
        if (std::string_view(c.name).starts_with("inductor_config[")) out.config.push_back(c);
        if (c.name == names::system_hash) has_system_hash = true;
        bool env = false;
        for (auto n : kEnvNames) env = env || c.name == n;
        if (env) {
            EnvComponent e{std::string(c.name),
                           std::string(c.value),
                           std::string(c.hash),
                           scope_of(c.name),
                           true,
                           false,
                           c.name == names::torch_version,
                           false,
                           source};
            out.env.set(std::move(e));
        }
        if (c.name != "gm" && !std::string_view(c.name).starts_with("example_inputs[")) {
            if (std::string p = absolute_path_in(c.value); !p.empty())
                out.hazards.push_back({std::string(c.name), std::string(c.value),
                                       "an absolute path (" + p + ") in the key: a machine with another layout" +
                                           (c.name == names::cxx ? " or another $CXX" : std::string()) +
                                           " computes another key"});
        }
    }
    // Without CUDA/ROCm, get_system() is {"hash": sha256("{}")}: no device or version line at all.
    if (has_system_hash) {
        for (auto n : {names::device, names::version})
            if (!out.env.find(n))
                out.env.set({std::string(n), "(not in the key: no GPU in that process)", "", scope_of(n), true, true,
                             false, false, source});
    }
    if (!devices.empty()) {
        out.env.set(
            {std::string(names::input_device), join(devices), "", Scope::process, true, false, false, false, source});
        if (devices.size() > 1 || *devices.begin() != "cuda:0")
            out.hazards.push_back({std::string(names::input_device), join(devices),
                                   "inputs on " + join(devices) +
                                       ": a process on another device index (another rank) "
                                       "computes another key"});
    }
    if (const EnvComponent* d = out.env.find(names::default_device_index); d && d->value != "0")
        out.hazards.push_back(
            {d->name, d->value,
             "compiled with current device " + d->value + ": a process on another device index computes another key"});
    if (const EnvComponent* t = out.env.find(names::cache_key_tag); t && !t->value.empty())
        out.hazards.push_back({t->name, t->value,
                               "a cache key tag ($TORCH_COMPILE_CACHE_KEY_TAG): only processes with "
                               "the same tag hit"});
    if (auto p = detect_protocol(comps))
        out.env.set({std::string(names::pickle_protocol), std::to_string(*p), "", Scope::install, true, false, false,
                     false, source});
    return out;
}

}  // namespace kiln::portability
