// `.best_config` files across ranks. Torch names each after sha256 of its kernel module's name (the
// hash of a source that embeds the device index) and torch_key, so no file name is shared between
// ranks, and the file does not name its kernel. What it does carry is configs_hash, the hash of the
// candidate configs the kernel was tuned from: kernels of one candidate set are compared as a set
// (exactly, where each rank has one such kernel).
#include <algorithm>
#include <map>

#include "ranks/ranks_report.hpp"

namespace kiln::ranks {
namespace {

using Json = nlohmann::ordered_json;

Json sorted_config(const Json& params) {
    std::vector<std::string> keys;
    for (auto it = params.begin(); it != params.end(); ++it) keys.push_back(it.key());
    std::sort(keys.begin(), keys.end());
    Json out = Json::object();
    for (const auto& k : keys) out[k] = params[k];
    return out;
}

std::string set_key(const BestConfigFile& b, std::vector<std::string>* keys_out = nullptr) {
    std::string k = b.configs_hash + "|";
    std::vector<std::string> keys;
    for (auto it = b.params.begin(); it != b.params.end(); ++it) keys.push_back(it.key());
    std::sort(keys.begin(), keys.end());
    for (const auto& x : keys) k += x + ",";
    if (keys_out) *keys_out = keys;
    return k;
}

// Configs of `a` that `b` lacks (as multisets).
std::vector<Json> minus(std::vector<Json> a, const std::vector<Json>& b) {
    for (const auto& x : b)
        if (auto it = std::find(a.begin(), a.end(), x); it != a.end()) a.erase(it);
    return a;
}

}  // namespace

KernelConfigComparison compare_kernel_configs(const std::vector<const LoadedRank*>& group) {
    KernelConfigComparison out;
    struct Entry {
        std::vector<std::string> keys;
        std::string hash;
        std::vector<std::vector<Json>> configs;
        std::vector<std::vector<std::string>> files;
    };
    std::vector<std::string> order;
    std::map<std::string, Entry> sets;
    for (size_t r = 0; r < group.size(); ++r) {
        out.kernels.push_back(group[r]->best_configs.size());
        for (const auto& b : group[r]->best_configs) {
            std::vector<std::string> keys;
            std::string k = set_key(b, &keys);
            auto [it, fresh] = sets.try_emplace(k);
            if (fresh) {
                order.push_back(k);
                it->second.keys = keys;
                it->second.hash = b.configs_hash;
                it->second.configs.resize(group.size());
                it->second.files.resize(group.size());
            }
            it->second.configs[r].push_back(sorted_config(b.params));
            it->second.files[r].push_back(b.path);
        }
    }
    out.sets = order.size();
    for (const auto& k : order) {
        Entry& e = sets[k];
        for (auto& c : e.configs)
            std::sort(c.begin(), c.end(), [](const Json& a, const Json& b) { return a.dump() < b.dump(); });
        if (std::all_of(e.configs.begin(), e.configs.end(), [&](const auto& c) { return c == e.configs.front(); }))
            continue;
        KernelConfigSet s;
        s.configs_hash = e.hash;
        s.keys = e.keys;
        s.per_rank = e.configs.front().size();
        s.one_per_rank = std::all_of(e.configs.begin(), e.configs.end(), [](const auto& c) { return c.size() == 1; });
        // Each rank against the first: the configs one has and the other lacks, paired where one each.
        for (size_t r = 1; r < group.size(); ++r) {
            auto mine = minus(e.configs.front(), e.configs[r]), theirs = minus(e.configs[r], e.configs.front());
            if (mine.empty() && theirs.empty()) continue;
            if (mine.empty() || theirs.empty()) {
                Verdict v{Effect::maybe_numerics, group[r]->label + " has " + std::to_string(e.configs[r].size()) +
                                                      " kernels of this set, " + group.front()->label + " " +
                                                      std::to_string(e.configs.front().size())};
                if (s.verdict.why.empty() || static_cast<int>(v.effect) > static_cast<int>(s.verdict.effect))
                    s.verdict = v;
                continue;
            }
            for (const auto& a : mine)
                for (const auto& b : theirs) {
                    Verdict v = kernel_config_effect(a, b);
                    if (mine.size() > 1 || theirs.size() > 1) v.why += " (which kernel had which is not recorded)";
                    if (s.verdict.why.empty() || static_cast<int>(v.effect) > static_cast<int>(s.verdict.effect))
                        s.verdict = v;
                }
        }
        s.configs = std::move(e.configs);
        s.files = std::move(e.files);
        out.differ.push_back(std::move(s));
    }
    return out;
}

}  // namespace kiln::ranks
