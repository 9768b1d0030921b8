#include "portability/fingerprint.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

namespace kiln::portability {

using ojson = nlohmann::ordered_json;

std::string_view scope_name(Scope s) {
    switch (s) {
        case Scope::machine: return "machine";
        case Scope::install: return "install";
        case Scope::environment: return "environment";
        case Scope::process: return "process";
    }
    return "machine";
}

namespace {

std::optional<Scope> scope_from_name(std::string_view s) {
    for (Scope c : {Scope::machine, Scope::install, Scope::environment, Scope::process})
        if (scope_name(c) == s) return c;
    return std::nullopt;
}

ojson component_json(const EnvComponent& c) {
    ojson j;
    j["name"] = c.name;
    j["value"] = c.value;
    j["hash"] = c.hash.empty() ? ojson(nullptr) : ojson(c.hash);
    j["scope"] = std::string(scope_name(c.scope));
    j["source"] = c.source;
    if (c.absent) j["absent"] = true;
    if (c.lossy) j["lossy"] = true;
    if (c.fresh_default) j["fresh_default"] = true;
    return j;
}

Result<EnvComponent> component_from_json(const ojson& j, bool in_key, const std::string& where) {
    if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
        return make_error(Errc::parse, "a component without a \"name\" string", where);
    EnvComponent c;
    c.name = j["name"].get<std::string>();
    c.in_key = in_key;
    auto str = [&](const char* k) {
        return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
    };
    auto flag = [&](const char* k) { return j.contains(k) && j[k].is_boolean() && j[k].get<bool>(); };
    c.value = str("value");
    c.hash = str("hash");
    c.source = str("source");
    if (auto s = scope_from_name(str("scope"))) c.scope = *s;
    else
        return make_error(Errc::parse, "component " + c.name + ": unknown scope '" + str("scope") + "'", where,
                          "expected machine, install, environment or process");
    c.absent = flag("absent");
    c.lossy = flag("lossy");
    c.fresh_default = flag("fresh_default");
    return c;
}

}  // namespace

const EnvComponent* Fingerprint::find(std::string_view name) const {
    for (const auto& c : components)
        if (c.name == name) return &c;
    return nullptr;
}

const UnknownComponent* Fingerprint::find_unknown(std::string_view name) const {
    for (const auto& u : unknown)
        if (u.name == name) return &u;
    return nullptr;
}

void Fingerprint::set(EnvComponent c) {
    unknown.erase(
        std::remove_if(unknown.begin(), unknown.end(), [&](const UnknownComponent& u) { return u.name == c.name; }),
        unknown.end());
    for (auto& existing : components)
        if (existing.name == c.name) {
            existing = std::move(c);
            return;
        }
    components.push_back(std::move(c));
}

void Fingerprint::mark_unknown(std::string name, std::string why) {
    if (find(name) || find_unknown(name)) return;
    unknown.push_back({std::move(name), std::move(why)});
}

std::string device_name_of(std::string_view v) {
    // "{'name': 'NVIDIA H200'}" (or with double quotes when the name holds a single quote)
    constexpr std::string_view head = "{'name': ";
    if (v.substr(0, head.size()) != head || v.size() < head.size() + 3 || v.back() != '}') return {};
    std::string_view q = v.substr(head.size(), v.size() - head.size() - 1);
    if (q.size() < 2 || (q.front() != '\'' && q.front() != '"') || q.back() != q.front()) return {};
    return std::string(q.substr(1, q.size() - 2));
}

std::string Fingerprint::device_name() const {
    const EnvComponent* d = find(names::device);
    return d && !d->absent ? device_name_of(d->value) : std::string();
}

std::string Fingerprint::label() const {
    std::string name = device_name();
    if (!name.empty()) return name;
    if (const EnvComponent* d = find(names::devices); d && !d->value.empty()) return d->value;
    return origin;
}

ojson to_json(const Fingerprint& fp) {
    ojson j;
    j["kiln_fingerprint"] = 1;
    j["origin"] = fp.origin;
    const EnvComponent* h = fp.find(names::system_hash);
    j["hash"] = h && !h->absent ? ojson(h->value) : ojson(nullptr);
    j["components"] = ojson::array();
    j["facts"] = ojson::array();
    for (const auto& c : fp.components) (c.in_key ? j["components"] : j["facts"]).push_back(component_json(c));
    j["unknown"] = ojson::array();
    for (const auto& u : fp.unknown) j["unknown"].push_back({{"name", u.name}, {"why", u.why}});
    j["notes"] = fp.notes;
    return j;
}

Result<Fingerprint> fingerprint_from_json(const ojson& j, const std::string& origin) {
    if (!j.is_object() || !j.contains("kiln_fingerprint"))
        return make_error(Errc::parse, "not a Kiln fingerprint (no \"kiln_fingerprint\" key)", origin,
                          "write one with `kiln-cli env --json > FILE`");
    // Compared as the number it is: get<int>() wrapped 4294967297 to 1.
    const ojson& version = j["kiln_fingerprint"];
    const bool is_one = (version.is_number_unsigned() && version.get<std::uint64_t>() == 1) ||
                        (version.is_number_integer() && version.get<std::int64_t>() == 1);
    if (!is_one)
        return make_error(Errc::unsupported, "fingerprint format version " + version.dump() + " (this Kiln reads 1)",
                          origin,
                          version.is_number_integer() && version.get<std::int64_t>() > 1
                              ? "written by a newer Kiln: read it with that one, or write it again with this one"
                              : "not a version any Kiln writes; write the file again with `kiln-cli env --json`");
    Fingerprint fp;
    fp.origin = j.contains("origin") && j["origin"].is_string() ? j["origin"].get<std::string>() : origin;
    // By name, so that loading is linear: Fingerprint::set looks each name up in a list (a later
    // duplicate replaces the earlier one in place, as set() does).
    std::unordered_map<std::string, std::size_t> at;
    for (const char* list : {"components", "facts"}) {
        if (!j.contains(list)) continue;
        if (!j[list].is_array())
            return make_error(Errc::parse, std::string("\"") + list + "\" is not an array", origin);
        for (const auto& c : j[list]) {
            KILN_TRY(EnvComponent comp, component_from_json(c, std::string(list) == "components", origin));
            auto [it, fresh] = at.try_emplace(comp.name, fp.components.size());
            if (fresh) fp.components.push_back(std::move(comp));
            else fp.components[it->second] = std::move(comp);
        }
    }
    if (j.contains("unknown") && j["unknown"].is_array()) {
        std::unordered_set<std::string> unknown;
        for (const auto& u : j["unknown"]) {
            if (!u.is_object() || !u.contains("name") || !u["name"].is_string()) continue;
            std::string name = u["name"].get<std::string>();
            if (at.count(name) || !unknown.insert(name).second) continue;  // known, or listed already
            fp.unknown.push_back(
                {std::move(name), u.contains("why") && u["why"].is_string() ? u["why"].get<std::string>() : ""});
        }
    }
    if (j.contains("notes") && j["notes"].is_array())
        for (const auto& n : j["notes"])
            if (n.is_string()) fp.notes.push_back(n.get<std::string>());
    return fp;
}

}  // namespace kiln::portability
