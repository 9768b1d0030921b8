#include "portability/verdict.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "portability/key_env.hpp"

namespace kiln::portability {

std::string_view verdict_name(Verdict v) {
    switch (v) {
        case Verdict::hit: return "hit";
        case Verdict::miss: return "miss";
        case Verdict::unknown: return "unknown";
    }
    return "unknown";
}

void Assessment::differ(std::string component, std::string cached, std::string target, Scope scope) {
    differs.push_back({std::move(component), std::move(cached), std::move(target), scope});
}

void Assessment::not_known(std::string component, std::string why) {
    unknown.push_back({std::move(component), std::move(why)});
}

void Assessment::finish() {
    verdict = !differs.empty() ? Verdict::miss : !unknown.empty() ? Verdict::unknown : Verdict::hit;
}

namespace {

std::string shown(const EnvComponent& c) { return c.absent ? "(not in the key)" : c.value; }

// Same or not, or nullopt when the two cannot be compared.
std::optional<bool> same(const EnvComponent& a, const EnvComponent& b) {
    if (a.absent || b.absent) return a.absent == b.absent;
    if (!a.hash.empty() && !b.hash.empty()) return a.hash == b.hash;
    if (a.lossy || b.lossy) return std::nullopt;
    return a.value == b.value;
}

// `t`: the target's component of that name (nullptr: none), when the caller has it at hand.
void compare_one(const EnvComponent& c, const EnvComponent* t, const Fingerprint& target, Assessment& out) {
    if (!t) {
        const UnknownComponent* u = target.find_unknown(c.name);
        out.not_known(c.name, u ? u->why : "not recorded in " + target.origin);
        return;
    }
    std::optional<bool> eq = same(c, *t);
    if (!eq) {
        out.not_known(c.name,
                      "its printed value is lossy and only one side has its component hash (" + t->source + ")");
        return;
    }
    if (*eq) return;
    if (c.scope == Scope::process && t->fresh_default) {
        out.not_known(c.name,
                      "set by the program: cached " + shown(c) + ", a fresh process on the target has " + shown(*t));
        return;
    }
    out.differ(c.name, shown(c), shown(*t), c.scope);
}

void compare_one(const EnvComponent& c, const Fingerprint& target, Assessment& out) {
    compare_one(c, target.find(c.name), target, out);
}

// The key components every graph entry is compared on, in debug-line order.
const std::vector<std::string>& graph_names() {
    static const std::vector<std::string> n = {
        std::string(names::cache_key_tag), std::string(names::deterministic), std::string(names::matmul),
        std::string(names::torch_version), std::string(names::device),        std::string(names::version),
        std::string(names::system_hash),   std::string(names::cxx),           std::string(names::pickle_protocol)};
    return n;
}
const std::vector<std::string>& graph_optional() {
    static const std::vector<std::string> n = {std::string(names::default_device_index),
                                               std::string(names::input_device)};
    return n;
}

}  // namespace

void compare_components(const Fingerprint& cached, const Fingerprint& target, const std::vector<std::string>& list,
                        const std::vector<std::string>& optional, Assessment& out) {
    for (const auto& name : list) {
        if (const EnvComponent* c = cached.find(name)) {
            compare_one(*c, target, out);
        } else if (name == names::pickle_protocol) {
            continue;  // unknown on the cached side: the hashes themselves still compare
        } else {
            out.not_known(name, "the cached key does not show it");
        }
    }
    for (const auto& name : optional)
        if (const EnvComponent* c = cached.find(name)) compare_one(*c, target, out);
}

Assessment assess_key(const Fingerprint& cached, const std::vector<inductor::KeyComponentView>& config,
                      const Fingerprint& target) {
    Assessment a;
    compare_components(cached, target, graph_names(), graph_optional(), a);
    // Config the target's environment sets (beyond cpp.cxx): compared with the key's own line. Looked
    // up by name, both ways, so a fingerprint of many components costs linear time.
    std::unordered_map<std::string_view, const inductor::KeyComponentView*> by_name;
    for (const auto& k : config) by_name.try_emplace(k.name, &k);
    for (const auto& t : target.components) {
        if (!t.in_key || t.name.rfind("inductor_config[", 0) != 0 || t.name == names::cxx) continue;
        auto found = by_name.find(t.name);
        const inductor::KeyComponentView* it = found == by_name.end() ? nullptr : found->second;
        if (!it) {
            a.differ(t.name, "(not in the key)", t.value, Scope::environment);
            continue;
        }
        EnvComponent c{std::string(it->name),
                       std::string(it->value),
                       std::string(it->hash),
                       Scope::environment,
                       true,
                       false,
                       false,
                       false,
                       "cache"};
        compare_one(c, &t, target, a);
    }
    a.finish();
    return a;
}

}  // namespace kiln::portability
