// The torch probe's output (python_source.cpp) as a fingerprint.
#include <map>

#include "portability/key_env.hpp"
#include "portability/sources.hpp"

namespace kiln::portability {

namespace {

using nlohmann::json;

std::string text(const json& j, const char* key) {
    if (!j.contains(key) || j[key].is_null()) return {};
    return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
}

Result<std::vector<inductor::KeyComponent>> probe_lines(const json& j, const std::string& origin) {
    if (!j.contains("debug_lines") || !j["debug_lines"].is_array())
        return make_error(Errc::parse, "the probe output has no \"debug_lines\" list", origin);
    std::vector<std::string> lines;
    for (const auto& l : j["debug_lines"])
        if (l.is_string()) lines.push_back(l.get<std::string>());
    auto comps = inductor::parse_debug_lines(lines);
    if (!comps) return std::move(comps.error()).with_context(origin);
    return comps;
}

void fact_if_known(Fingerprint& fp, std::string_view name, const std::string& value, const std::string& source) {
    if (!value.empty()) fp.set({std::string(name), value, "", scope_of(name), false, false, false, false, source});
}

void device_facts(Fingerprint& fp, const json& probe) {
    if (!probe.contains("devices") || !probe["devices"].is_array() || probe["devices"].empty()) {
        fp.mark_unknown(std::string(names::compute_capability), "torch sees no GPU on this machine");
        return;
    }
    const json& devs = probe["devices"];
    std::string list;
    for (std::size_t i = 0; i < devs.size(); ++i)
        if (devs[i].is_object()) list += (i ? "; " : "") + std::to_string(i) + ": " + text(devs[i], "name");
    fact_if_known(fp, names::devices, list, "python");
    std::size_t cur = 0;
    if (probe.contains("current_device") && probe["current_device"].is_number_unsigned())
        cur = probe["current_device"].get<std::size_t>();
    if (cur >= devs.size()) cur = 0;
    const json& d = devs[cur];
    if (!d.is_object()) return;
    std::string src = "python (device " + std::to_string(cur) + ")";
    std::string gcn = text(d, "gcnArchName");
    if (!text(probe, "torch_hip").empty() && !gcn.empty())
        fact_if_known(fp, names::compute_capability, gcn.substr(0, gcn.find(':')), src);
    else if (d.contains("major") && d.contains("minor") && d["major"].is_number_integer() &&
             d["minor"].is_number_integer())
        fact_if_known(fp, names::compute_capability, std::to_string(d["major"].get<int>() * 10 + d["minor"].get<int>()),
                      src);
    fact_if_known(fp, names::sm_count, text(d, "multi_processor_count"), src);
    fact_if_known(fp, names::warp_size, text(d, "warp_size"), src);
    // A fresh process compiles for its current device: inputs on cuda:<current>.
    fp.set({std::string(names::input_device), "cuda:" + std::to_string(cur), "", Scope::process, true, false, false,
            true, "python (current device of a fresh process)"});
}

}  // namespace

Result<Fingerprint> fingerprint_from_probe(const json& probe, const json* baseline, const std::string& origin) {
    if (!probe.is_object() || !probe.contains("kiln_probe"))
        return make_error(Errc::parse, "not the output of Kiln's torch probe (no \"kiln_probe\")", origin);
    if (probe.contains("error")) return make_error(Errc::not_found, text(probe, "error"), origin);
    KILN_TRY(auto comps, probe_lines(probe, origin));
    KeyEnv k = key_env(comps, "python");
    Fingerprint fp = std::move(k.env);
    fp.origin = origin;
    for (auto& c : fp.components)
        if (c.scope == Scope::process) {
            c.fresh_default = true;
            c.source = "python (a fresh process)";
        }
    if (probe.contains("pickle_protocol") && probe["pickle_protocol"].is_number_integer()) {
        std::string p = std::to_string(probe["pickle_protocol"].get<int>());
        if (const EnvComponent* d = fp.find(names::pickle_protocol); d && d->value != p)
            fp.notes.push_back("pickle.DEFAULT_PROTOCOL is " + p + " but the hashes match protocol " + d->value);
        fp.set({std::string(names::pickle_protocol), p, "", Scope::install, true, false, false, false,
                "python (pickle.DEFAULT_PROTOCOL)"});
    }
    // Config the environment sets: the lines that differ from a run without torch's variables.
    if (baseline) {
        KILN_TRY(auto base, probe_lines(*baseline, origin + " (baseline without torch's variables)"));
        std::map<std::string, std::string> base_hash;
        for (const auto& c : base) base_hash[c.name] = c.hash;
        for (const auto& c : k.config) {
            auto it = base_hash.find(std::string(c.name));
            if (it != base_hash.end() && it->second == c.hash) continue;
            fp.set({std::string(c.name), std::string(c.value), std::string(c.hash), Scope::environment, true, false,
                    false, false, "python (set by environment variables)"});
        }
    }
    fact_if_known(fp, names::torch, text(probe, "torch"), "python");
    fact_if_known(fp, names::torch_cuda, text(probe, "torch_cuda"), "python");
    fact_if_known(fp, names::triton, text(probe, "triton"), "python");
    fact_if_known(fp, names::python, text(probe, "python"), "python");
    fact_if_known(fp, names::torch_key, text(probe, "torch_key"), "python (torch_key())");
    fact_if_known(fp, names::backend_hash, text(probe, "backend_hash"), "python (triton_hash_with_backend())");
    device_facts(fp, probe);
    if (probe.contains("environment") && probe["environment"].is_object()) {
        std::string vars;
        for (const auto& [key, v] : probe["environment"].items())
            vars += (vars.empty() ? "" : "; ") + key + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
        fact_if_known(fp, names::env_vars, vars, "python (os.environ)");
    }
    return fp;
}

}  // namespace kiln::portability
