// A fingerprint out of what a machine left in its cache: one graph entry's key components, or a
// cache root's (the environment of its newest entry; Triton kernel dirs give the compute
// capability, timing caches the system block when there is no graph entry).
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>

#include "portability/cache_files.hpp"
#include "portability/entry_lines.hpp"
#include "portability/key_env.hpp"
#include "portability/sources.hpp"

namespace kiln::portability {

namespace fs = std::filesystem;

namespace {

EntryKind kind_of_path(const fs::path& p) {
    for (const auto& part : p)
        if (part == "aotautograd") return EntryKind::aot_autograd;
    return EntryKind::fx_graph;
}

// The environment of one entry: the first list of lines (an AOT entry's forward graph).
Result<KeyEnv> entry_env(const fs::path& path, const std::string& label) {
    EntryKind kind = kind_of_path(path);
    KILN_TRY(EntryLines lines, read_entry_lines(path, kind));
    if (kind == EntryKind::fx_graph && (lines.lists.empty() || lines.lists[0].empty())) {
        KILN_TRY(EntryLines aot, read_entry_lines(path, EntryKind::aot_autograd));
        if (!aot.lists.empty()) lines = std::move(aot);
    }
    if (lines.lists.empty() || lines.lists[0].empty())
        return make_error(Errc::not_found, "the entry records no key debug lines", path.string(),
                          "pass an fxgraph/ or aotautograd/ entry written by torch 2.x");
    KeyEnv k = key_env(component_views(lines.lists[0]), label);
    k.config.clear();  // views into `lines`, which end here
    return k;
}

std::string signature(const Fingerprint& fp) {
    std::string s;
    for (const auto& c : fp.components) s += c.name + "=" + (c.hash.empty() ? c.value : c.hash) + "\n";
    return s;
}

struct Group {
    Fingerprint env;
    std::map<std::string, std::set<std::string>> device_values;  // per-graph device components seen
    std::map<std::string, EnvComponent> device_sample;
    std::size_t entries = 0;
    std::int64_t newest_ns = 0;
    std::string newest_path;
};

std::int64_t mtime_ns(const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return 0;
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// Graph entries' environments, grouped; key dirs are <root>/fxgraph/<xx>/<key>/ and <root>/aotautograd/<key>/.
std::vector<Group> entry_groups(const fs::path& root) {
    std::map<std::string, Group> groups;
    std::error_code ec;
    auto add = [&](const fs::path& entry) {
        std::string rel = fs::relative(entry, root, ec).generic_string();
        auto env = entry_env(entry, "cache " + rel);
        if (!env) return;
        // Device indices vary per graph; the group is the machine, the install and the process settings
        // (deterministic and matmul settings are process-wide: graphs that differ there are another group).
        Fingerprint fp = std::move(env->env);
        std::vector<EnvComponent> per_graph;
        for (const auto& c : fp.components)
            if (c.name == names::input_device || c.name == names::default_device_index) per_graph.push_back(c);
        fp.components.erase(std::remove_if(fp.components.begin(), fp.components.end(),
                                           [](const EnvComponent& c) {
                                               return c.name == names::input_device ||
                                                      c.name == names::default_device_index;
                                           }),
                            fp.components.end());
        Group& g = groups[signature(fp)];
        for (auto& c : per_graph) {
            g.device_values[c.name].insert(c.value);
            g.device_sample.emplace(c.name, std::move(c));
        }
        if (g.entries++ == 0) g.env = std::move(fp);
        std::int64_t t = mtime_ns(entry);
        if (t >= g.newest_ns) {
            g.newest_ns = t;
            g.newest_path = rel;
        }
    };
    for (const auto& dir : {root / "fxgraph", root / "aotautograd"})
        for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
            if (it.depth() <= 2 && it->is_regular_file(ec) && it->path().filename().string()[0] != '.') add(it->path());
    std::vector<Group> out;
    for (auto& [sig, g] : groups) {
        // A device index every graph of the root shares (cuda:0 on a one-GPU machine) is the root's.
        for (auto& [name, values] : g.device_values)
            if (values.size() == 1) g.env.set(std::move(g.device_sample[name]));
        out.push_back(std::move(g));
    }
    std::sort(out.begin(), out.end(), [](const Group& a, const Group& b) { return a.newest_ns > b.newest_ns; });
    return out;
}

}  // namespace

Result<Fingerprint> fingerprint_from_entry(const fs::path& path) {
    KILN_TRY(KeyEnv k, entry_env(path, "entry"));
    Fingerprint fp = std::move(k.env);
    fp.origin = "entry " + path.string();
    for (const auto& h : k.hazards) fp.notes.push_back(h.component + ": " + h.why);
    return fp;
}

Result<Fingerprint> fingerprint_from_root(const fs::path& root) {
    std::vector<Group> groups = entry_groups(root);
    Fingerprint fp;
    if (!groups.empty()) {
        fp = groups[0].env;
        fp.notes.push_back("the environment of " + std::to_string(groups[0].entries) + " graph entries, newest " +
                           groups[0].newest_path);
        for (std::size_t i = 1; i < groups.size(); ++i)
            fp.notes.push_back("the root also holds " + std::to_string(groups[i].entries) +
                               " graph entries of another environment (" + groups[i].env.label() + ", newest " +
                               groups[i].newest_path + "); pass one of them to use it");
    } else {
        std::vector<TimingCacheSystem> systems = read_timing_systems(root);
        if (systems.empty())
            return make_error(Errc::not_found, "no graph entries or timing caches to read an environment from",
                              root.string(), "pass a cache root that torch has written to");
        fp = systems[0].as_components("cache " + systems[0].rel_path);
        for (std::size_t i = 1; i < systems.size(); ++i)
            fp.notes.push_back("the root also holds a timing cache of " + systems[i].device_name + " (" +
                               systems[i].rel_path + ")");
    }
    fp.origin = "cache " + root.string();
    if (auto arch = common_triton_arch(root)) {
        fp.set({std::string(names::compute_capability), arch->first, "", Scope::machine, false, false, false, false,
                "cache " + arch->second});
    }
    return fp;
}

}  // namespace kiln::portability
