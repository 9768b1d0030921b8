#include "portability/seen_keys.hpp"

#include <algorithm>

#include "inductor/graph_entry.hpp"
#include "inductor/newer_torch.hpp"

namespace kiln::portability {

namespace {

void put(std::string& out, std::string_view s) {
    out += std::to_string(s.size());
    out += ':';
    out += s;
}

}  // namespace

std::string KeyFacts::canonical() const {
    std::string out;
    out += has_lines ? 'L' : '-';
    put(out, env.origin);
    for (const EnvComponent& c : env.components) {
        out += 'E';
        put(out, c.name);
        put(out, c.value);
        put(out, c.hash);
        put(out, c.source);
        out += static_cast<char>('0' + static_cast<int>(c.scope));
        out += static_cast<char>('0' + (c.in_key ? 1 : 0) + (c.absent ? 2 : 0) + (c.lossy ? 4 : 0) +
                                 (c.fresh_default ? 8 : 0));
    }
    for (const UnknownComponent& u : env.unknown) {
        out += 'U';
        put(out, u.name);
        put(out, u.why);
    }
    for (const std::string& n : env.notes) {
        out += 'N';
        put(out, n);
    }
    for (const auto& c : config) {
        out += 'C';
        put(out, c.hash);
        put(out, c.name);
        put(out, c.value);
    }
    for (const Hazard& h : hazards) {
        out += 'H';
        put(out, h.component);
        put(out, h.value);
        put(out, h.why);
    }
    for (const std::string& n : newer) {
        out += 'W';
        put(out, n);
    }
    return out;
}

KeyFacts key_facts(const std::vector<std::string_view>& lines) {
    KeyFacts f;
    if (lines.empty()) return f;
    f.has_lines = true;
    auto comps = component_views(lines);
    KeyEnv env = key_env(comps, "cache");
    f.env = std::move(env.env);
    f.hazards = std::move(env.hazards);
    f.config.reserve(env.config.size());
    for (const auto& c : env.config)
        f.config.push_back({std::string(c.hash), std::string(c.name), std::string(c.value)});
    for (const auto& c : comps)
        if (!inductor::known_key_component(c.name) &&
            std::find(f.newer.begin(), f.newer.end(), c.name) == f.newer.end())
            f.newer.emplace_back(c.name);
    return f;
}

void SeenKeys::add(std::string_view rel, bool aot, const inductor::GraphEntry& entry) {
    KeyFacts f = key_facts(aot ? entry.forward_debug_line_views() : entry.debug_line_views());
    std::string canon = f.canonical();
    const std::lock_guard lock(mutex_);
    auto it = by_canonical_.find(canon);
    if (it == by_canonical_.end()) {
        if (facts_.size() >= kMaxDistinct) return;  // summarize_scan reads this one itself
        facts_.push_back(std::move(f));
        it = by_canonical_.emplace(std::move(canon), static_cast<std::uint32_t>(facts_.size() - 1)).first;
    }
    by_rel_.insert_or_assign(std::string(rel), it->second);
}

const KeyFacts* SeenKeys::find(std::string_view rel) const {
    const std::lock_guard lock(mutex_);
    auto it = by_rel_.find(std::string(rel));
    return it == by_rel_.end() ? nullptr : &facts_[it->second];
}

std::size_t SeenKeys::size() const {
    const std::lock_guard lock(mutex_);
    return by_rel_.size();
}

std::size_t SeenKeys::distinct() const {
    const std::lock_guard lock(mutex_);
    return facts_.size();
}

}  // namespace kiln::portability
