#pragma once
// "Why did my graph miss the cache?": each FX graph cache miss of a TORCH_TRACE log compared with
// the cached entries under an Inductor root; the entry whose key components are closest, and the
// components that differ, say what changed (a config, an input's shape, the graph itself).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/debug_lines.hpp"
#include "inductor/key_diff.hpp"
#include "inductor/trace_log.hpp"
#include "util/result.hpp"

namespace kiln::inductor {

// A cached FX graph entry with the components of its key.
struct KeyedEntry {
    std::string path;  // relative to the root: fxgraph/<xx>/<key>/<entry>
    std::string key;   // the key dir's name ("f...")
    std::vector<KeyComponent> components;
};

// Every fxgraph entry under `root` that records its debug lines; entries that fail to decode are
// skipped and counted in `skipped` (a miss analysis should not fail on one broken file).
struct KeyedEntries {
    std::vector<KeyedEntry> entries;
    std::vector<std::string> skipped;  // "path: reason"
};
Result<KeyedEntries> load_keyed_entries(const std::filesystem::path& root);

struct MissExplanation {
    std::optional<std::string> closest_path;  // nullopt: nothing to compare with
    std::optional<std::string> closest_key;
    ComponentDiff diff;  // a = the event's components, b = the entry's
    std::string note;    // why there is no comparison, when there is none
};

// Compares a miss event with the entries; an entry under the event's own key is left out (the miss
// wrote it). Ties go to the entry that sorts first.
MissExplanation explain_miss(const CacheEvent& event, const KeyedEntries& cached);

// kiln-cli misses --json: {"events": [{"index", "log", "line", "compile_id", "key", "state", "time",
// "time_taken_ns", "time_saved_ns", "reason"?, "closest"?, "note"?}], "entries_compared"?, "skipped"?}
// for the fx_graph events (index: as LOG#N names them); "closest" ({"entry", "key", "differing",
// "changed": [{"component", "event", "entry"}], "same"} or null) only for misses when `cached` is given.
nlohmann::ordered_json misses_to_json(const std::vector<CacheEvent>& events, const KeyedEntries* cached);

}  // namespace kiln::inductor
