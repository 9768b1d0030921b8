#include "portability/seen_keys.hpp"

#include "inductor/graph_entry.hpp"
#include "inductor/newer_torch.hpp"

namespace kiln::portability {

KeyFacts key_facts(bool has_lines, const std::vector<inductor::KeyComponentView>& comps) {
    KeyFacts f;
    if (!has_lines) return f;
    f.has_lines = true;
    KeyEnv env = key_env(comps, "cache");
    f.env = std::move(env.env);
    f.hazards = std::move(env.hazards);
    f.config.reserve(env.config.size());
    for (const auto& c : env.config)
        f.config.push_back({std::string(c.hash), std::string(c.name), std::string(c.value)});
    f.newer = inductor::unknown_key_components(comps);
    return f;
}

KeyFacts key_facts(const std::vector<std::string_view>& lines) {
    return key_facts(!lines.empty(),
                     lines.empty() ? std::vector<inductor::KeyComponentView>{} : component_views(lines));
}

void SeenKeys::add(std::string_view rel, bool aot, const inductor::GraphEntry& entry) {
    const inductor::KeyComponents& split = entry.key_components(aot);
    const auto& comps = split.components;
    // Deduplicated on what key_env reads, before it runs: most entries find their environment here.
    thread_local std::string input;  // reused: a key's input is tens of KB, each entry's a fresh mmap
    key_env_input(comps, input);
    input += split.has_lines ? 'L' : '-';
    {
        const std::lock_guard lock(mutex_);
        if (auto it = by_input_.find(input); it != by_input_.end()) {
            by_rel_.insert_or_assign(std::string(rel), it->second);
            return;
        }
        if (facts_.size() >= kMaxDistinct) return;  // summarize_scan reads this one itself
    }
    KeyFacts f = key_facts(split.has_lines, comps);
    const std::lock_guard lock(mutex_);
    auto it = by_input_.find(input);
    if (it == by_input_.end()) {
        if (facts_.size() >= kMaxDistinct) return;
        facts_.push_back(std::move(f));
        it = by_input_.emplace(input, static_cast<std::uint32_t>(facts_.size() - 1)).first;
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
