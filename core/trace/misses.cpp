#include "trace/misses.hpp"

#include <algorithm>
#include <map>
#include <string_view>

#include "inductor/beneath_root.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/guard_lookup.hpp"
#include "inductor/roots.hpp"
#include "pickle/buffer.hpp"

namespace kiln::trace {

Result<KeyedEntries> load_keyed_entries(const inductor::OpenedRoot& root, bool write_times_known) {
    if (!inductor::is_directory_beneath(root, "fxgraph"))
        return make_error(Errc::not_found, "no fxgraph/ directory under the root", root.path.string(),
                          "pass the Inductor cache root ($TORCHINDUCTOR_CACHE_DIR)");
    std::vector<std::string> key_dirs;  // relative to the root
    KILN_TRY(auto shards, inductor::list_beneath(root, "fxgraph"));
    for (const auto& shard : shards) {
        if (!shard.directory) continue;
        const std::string rel = "fxgraph/" + shard.name;
        KILN_TRY(auto keys, inductor::list_beneath(root, rel));
        for (const auto& k : keys)
            if (k.directory) key_dirs.push_back(rel + "/" + k.name);
    }
    std::sort(key_dirs.begin(), key_dirs.end());
    KeyedEntries out;
    out.write_times_known = write_times_known;
    for (const auto& dir : key_dirs) {
        KILN_TRY(auto files, inductor::key_dir_entries(root, dir));
        for (const auto& rel : files) {
            const std::string path = inductor::path_beneath(root, rel);
            auto entry = [&]() -> Result<inductor::GraphEntry> {
                KILN_TRY(OpenedFile file, inductor::open_beneath(root, rel));
                KILN_TRY(auto buffer, pickle::load_opened_file(file, path));
                return inductor::decode_graph_entry(std::move(buffer));
            }();
            if (!entry) {
                out.skipped.push_back(rel + ": " + entry.error().str());
                continue;
            }
            auto comps = inductor::parse_debug_lines(entry->debug_lines());
            if (!comps || comps->empty()) {
                out.skipped.push_back(rel + ": " +
                                      (comps ? std::string("no _fx_graph_cache_debug_lines") : comps.error().str()));
                continue;
            }
            out.entries.push_back({rel, std::string(dir.substr(dir.rfind('/') + 1)), std::move(comps).value(),
                                   write_times_known ? inductor::mtime_ns_beneath(root, rel) : std::nullopt});
        }
    }
    return out;
}

Result<KeyedEntries> load_keyed_entries(const std::filesystem::path& root, bool write_times_known) {
    // Opened once, then read as a command's opened root is: one reader of a root's entries.
    KILN_TRY(UniqueFd fd, inductor::open_root_dir(root));
    return load_keyed_entries(inductor::OpenedRoot{root, fd.get()}, write_times_known);
}

void date_entries_by_run(KeyedEntries& cached, const TraceRun& run) {
    std::map<std::string_view, std::int64_t> missed;  // key -> its first miss in the run
    for (const auto& e : run.events) {
        if (e.cache != "fx_graph" || e.state != "miss" || e.key.empty() || !e.event_time_ns) continue;
        auto [it, added] = missed.try_emplace(e.key, *e.event_time_ns);
        if (!added) it->second = std::min(it->second, *e.event_time_ns);
    }
    for (auto& entry : cached.entries)
        if (!entry.mtime_ns)
            if (auto it = missed.find(entry.key); it != missed.end()) entry.mtime_ns = it->second;
}

MissExplanation explain_miss(const CacheEvent& event, const KeyedEntries& cached) {
    MissExplanation m;
    if (event.components.empty()) {
        m.note = "the event records no key components";
        return m;
    }
    auto comps = inductor::parse_debug_lines(event.components);
    if (!comps) {
        m.note = "the event's components do not parse: " + comps.error().str();
        return m;
    }
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < cached.entries.size(); ++i) {
        const KeyedEntry& e = cached.entries[i];
        if (e.key == event.key) continue;
        if (e.mtime_ns && event.event_time_ns && *e.mtime_ns >= *event.event_time_ns) continue;
        inductor::ComponentDiff d = inductor::diff_components(*comps, e.components);
        if (!best || d.distance() < m.diff.distance()) {
            best = i;
            m.diff = std::move(d);
        }
    }
    if (!best) {
        m.note = cached.entries.empty() ? "no cached fxgraph entries with debug lines under the root"
                                        : "no entry under another key written before this miss";
        return m;
    }
    m.closest_path = cached.entries[*best].path;
    m.closest_key = cached.entries[*best].key;
    return m;
}

std::string miss_class(const CacheEvent& e) {
    if (e.state == "bypass") return "bypass";
    if (e.status_detailed == "hit" || e.state == "hit") return "hit";
    if (e.status_detailed == "guard_miss") return "guard miss";
    if (e.status_detailed == "full_miss") return "key miss";
    return e.state.empty() ? std::string("unknown") : e.state;
}

}  // namespace kiln::trace
