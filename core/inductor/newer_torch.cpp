#include "inductor/newer_torch.hpp"

#include <algorithm>
#include <array>

#include "inductor/beneath_root.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/guard_lookup.hpp"
#include "inductor/stats.hpp"
#include "pickle/buffer.hpp"

namespace fs = std::filesystem;

namespace kiln::inductor {
namespace {

// FxGraphHashDetails' names in torch 2.11's keys, read off the fixtures' entries (tests/data) and
// 2.11's codecache.py (user_defined_triton_source appears only for graphs with user Triton kernels).
constexpr std::array<std::string_view, 20> kTorch211Components = {
    "gm",
    "example_inputs",
    "cache_key_tag",
    "fx_kwargs",
    "inputs_to_check",
    "deterministic_algorithms_settings",
    "cuda_matmul_settings",
    "torch_version",
    "system_info",
    "inductor_config",
    "post_grad_custom_pre_pass",
    "post_grad_custom_post_pass",
    "joint_custom_pre_pass",
    "joint_custom_post_pass",
    "_pre_fusion_custom_pass",
    "_fuse_ddp_communication_passes",
    "custom_backend_passes",
    "_custom_partitioner_fn",
    "precompile_enabled",
    "user_defined_triton_source",
};

std::string_view base_name(std::string_view name) { return name.substr(0, name.find('[')); }

std::string plural_files(std::uint64_t n) { return std::to_string(n) + (n == 1 ? " file" : " files"); }

}  // namespace

bool known_key_component(std::string_view name) {
    const std::string_view base = base_name(name);
    return std::find(kTorch211Components.begin(), kTorch211Components.end(), base) != kTorch211Components.end();
}

namespace {

template <class Component>
std::vector<std::string> unknown_names(const std::vector<Component>& components) {
    std::vector<std::string> out;
    for (const auto& c : components)
        if (!known_key_component(c.name) && std::find(out.begin(), out.end(), c.name) == out.end())
            out.emplace_back(c.name);
    return out;
}

}  // namespace

std::vector<std::string> unknown_key_components(const std::vector<KeyComponent>& components) {
    return unknown_names(components);
}
std::vector<std::string> unknown_key_components(const std::vector<KeyComponentView>& components) {
    return unknown_names(components);
}

bool unknown_to_kiln(Category c) { return c == Category::other || c == Category::cutedsl; }

std::string unknown_place(std::string_view rel) {
    const auto slash = rel.find('/');
    if (slash == std::string_view::npos) return std::string(rel);
    const std::string_view top = rel.substr(0, slash), name = rel.substr(rel.rfind('/') + 1);
    if (top.size() == 2 && rel.find('/', slash + 1) == std::string_view::npos) {
        // A code dir's file: what kind it is, not which of the hundreds of <xx>/ dirs holds it.
        const auto dot = name.find('.');
        return "<xx>/*" + std::string(dot == std::string_view::npos ? std::string_view() : name.substr(dot));
    }
    return std::string(top) + "/";
}

void add_unknown_file(UnknownToKiln& u, const Artifact& a) {
    if (!unknown_to_kiln(a.category)) return;
    auto& p = u.places[unknown_place(a.rel_path())];
    ++p.files;
    p.bytes += a.size;
}

void read_key_components(UnknownToKiln& u, const OpenedRoot& root, std::size_t max_entries) {
    std::vector<std::string> key_dirs;  // relative to the root
    if (auto shards = list_beneath(root, "fxgraph"))
        for (const auto& shard : *shards) {
            if (!shard.directory) continue;
            const std::string rel = "fxgraph/" + shard.name;
            if (auto keys = list_beneath(root, rel))
                for (const auto& k : *keys)
                    if (k.directory) key_dirs.push_back(rel + "/" + k.name);
        }
    std::sort(key_dirs.begin(), key_dirs.end());
    for (const auto& dir : key_dirs) {
        auto files = key_dir_entries(root, dir);
        if (!files) continue;
        for (const auto& f : *files) {
            if (u.entries_read >= max_entries) return;
            // One that does not open or decode is `check`'s business.
            auto file = open_beneath(root, f);
            auto buffer = file ? pickle::load_opened_file(*file, path_beneath(root, f))
                               : Result<std::shared_ptr<const pickle::Buffer>>(file.error());
            auto entry = buffer ? decode_graph_entry(std::move(*buffer)) : Result<GraphEntry>(buffer.error());
            if (!entry) continue;
            auto comps = parse_debug_lines(entry->debug_lines());
            if (!comps || comps->empty()) continue;
            ++u.entries_read;
            auto unknown = unknown_key_components(*comps);
            if (!unknown.empty()) ++u.entries_with_unknown;
            for (auto& name : unknown)
                if (std::find(u.components.begin(), u.components.end(), name) == u.components.end())
                    u.components.push_back(std::move(name));
        }
    }
}

std::string describe_unknown(const UnknownToKiln& u) {
    if (u.empty()) return {};
    std::string out;
    if (!u.places.empty()) {
        out = "unknown to Kiln: ";
        bool first = true;
        for (const auto& [place, p] : u.places) {
            out += (first ? "" : ", ") + place + " (" + plural_files(p.files) + ", " + format_bytes(p.bytes) + ")";
            first = false;
        }
    }
    if (!u.components.empty()) {
        out += out.empty() ? "" : "; ";
        out += "key components torch " + std::string(kKnownTorch) + " does not write: ";
        for (std::size_t i = 0; i < u.components.size(); ++i) out += (i ? ", " : "") + u.components[i];
        out += " (" + std::to_string(u.entries_with_unknown) + " of " + std::to_string(u.entries_read) +
               " graph entries read)";
        out += ": written by a torch newer than " + std::string(kKnownTorch) + " (2.12?)";
    } else {
        out += ": torch " + std::string(kKnownTorch) + " writes none of them (a newer torch's, or another tool's?)";
    }
    out += "; Kiln shows these as they are and reads nothing into them";
    return out;
}

nlohmann::ordered_json to_json(const UnknownToKiln& u) {
    nlohmann::ordered_json places = nlohmann::ordered_json::object();
    for (const auto& [place, p] : u.places) places[place] = {{"files", p.files}, {"bytes", p.bytes}};
    return {{"places", std::move(places)},
            {"key_components", u.components},
            {"entries_read", u.entries_read},
            {"entries_with_unknown", u.entries_with_unknown},
            {"known_torch", kKnownTorch}};
}

}  // namespace kiln::inductor
