#include "inductor/evict_needs.hpp"

#include "inductor/graph_entry.hpp"

namespace kiln::inductor {

std::vector<std::string> needed_fx_keys(const GraphEntry& entry) {
    std::vector<std::string> out;
    if (entry.is_aot_autograd())
        for (auto key : {entry.forward_fx_key(), entry.backward_fx_key()})
            if (key) out.push_back(std::move(*key));
    return out;
}

std::vector<std::string> needed_kernel_dirs(const GraphEntry& entry) {
    std::vector<std::string> out;
    if (entry.is_fx_graph())
        for (const auto& k : entry.triton_bundle())  // a hash with a '/' names no dir of this root
            if (k.device && *k.device >= 0 && k.kernel_hash.find('/') == std::string::npos)
                out.push_back("triton/" + std::to_string(*k.device) + "/" + k.kernel_hash);
    return out;
}

void EntryNeeds::add(std::string_view rel, const GraphEntry& entry) {
    Needs n{needed_fx_keys(entry), needed_kernel_dirs(entry)};
    const std::lock_guard lock(mutex_);
    seen_.insert_or_assign(std::string(rel), std::move(n));
}

std::optional<std::vector<std::string>> EntryNeeds::fx_keys_of_aot(std::string_view rel) const {
    const std::lock_guard lock(mutex_);
    const auto it = seen_.find(std::string(rel));
    if (it == seen_.end()) return std::nullopt;
    return it->second.fx_keys;
}

std::optional<std::vector<std::string>> EntryNeeds::kernel_dirs_of_fx(std::string_view rel) const {
    const std::lock_guard lock(mutex_);
    const auto it = seen_.find(std::string(rel));
    if (it == seen_.end()) return std::nullopt;
    return it->second.kernel_dirs;
}

std::size_t EntryNeeds::size() const {
    const std::lock_guard lock(mutex_);
    return seen_.size();
}

}  // namespace kiln::inductor
