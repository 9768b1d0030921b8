#include "bundle/diff.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "bundle/blob.hpp"
#include "bundle/root_artifacts.hpp"
#include "hash/sha256.hpp"
#include "inductor/roots.hpp"
#include "pickle/buffer.hpp"

namespace kiln::bundle {
namespace {

using Side = std::map<std::pair<int, std::string>, std::pair<ArtifactType, std::vector<SideEntry>>>;

// PGO keys by the file torch writes: a blob's "job:0:" and a root's "job_0_" are one profile.
std::string comparable_key(ArtifactType t, const std::string& key) {
    if (t != ArtifactType::pgo) return key;
    std::string name = pgo_file_name(key);  // code_state_<sanitized>.pkl
    return name.substr(11, name.size() - 15);
}

void add(Side& side, ArtifactType t, const std::string& key, std::string_view content) {
    auto& slot = side[{blob_type_rank(t), comparable_key(t, key)}];
    slot.first = t;
    std::string h = hash::sha256_hash(content);
    for (const auto& e : slot.second)
        if (e.hash == h) return;
    slot.second.push_back({std::move(h), content.size()});
}

Result<Side> load_side(const std::string& path, std::string& label) {
    Side side;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        label = "cache " + path;
        // Not a command's cache (diff reads a blob as it is, never unpacked): opened here, once.
        KILN_TRY(UniqueFd root_fd, inductor::open_root_dir(path));
        KILN_TRY(RootArtifacts root, collect_root_artifacts({path, root_fd.get()}));
        for (const auto& a : root.artifacts) {
            KILN_TRY(auto buffer, read_root_artifact(root_fd.get(), a, UINT64_MAX));
            add(side, a.type, a.key, buffer->bytes());
        }
        return side;
    }
    label = "blob " + path;
    KILN_TRY(Blob blob, open_blob(path));
    for (const auto& a : blob.artifacts)
        if (a.effective()) add(side, a.kind, a.key, a.content);
    return side;
}

bool same_entries(std::vector<SideEntry> x, std::vector<SideEntry> y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i].hash != y[i].hash) return false;
    return true;
}

}  // namespace

std::string_view diff_status_name(DiffStatus s) {
    switch (s) {
        case DiffStatus::only_a: return "only_a";
        case DiffStatus::only_b: return "only_b";
        case DiffStatus::differ: return "differ";
        case DiffStatus::same: return "same";
    }
    return "same";
}

std::size_t BundleDiff::count(DiffStatus s) const {
    return static_cast<std::size_t>(
        std::count_if(keys.begin(), keys.end(), [s](const KeyDiff& k) { return k.status == s; }));
}

Result<BundleDiff> diff_bundles(const std::string& a_path, const std::string& b_path) {
    BundleDiff out;
    KILN_TRY(Side a, load_side(a_path, out.a_label));
    KILN_TRY(Side b, load_side(b_path, out.b_label));
    auto by_hash = [](const SideEntry& x, const SideEntry& y) { return x.hash < y.hash; };
    std::map<std::pair<int, std::string>, KeyDiff> merged;
    for (auto& [k, v] : a) merged[k] = {v.first, k.second, DiffStatus::only_a, v.second, {}};
    for (auto& [k, v] : b) {
        auto [it, fresh] = merged.try_emplace(k, KeyDiff{v.first, k.second, DiffStatus::only_b, {}, v.second});
        if (!fresh) it->second.b = v.second;
    }
    for (auto& [k, d] : merged) {
        std::sort(d.a.begin(), d.a.end(), by_hash);
        std::sort(d.b.begin(), d.b.end(), by_hash);
        if (!d.a.empty() && !d.b.empty()) d.status = same_entries(d.a, d.b) ? DiffStatus::same : DiffStatus::differ;
        out.keys.push_back(std::move(d));
    }
    return out;
}

}  // namespace kiln::bundle
