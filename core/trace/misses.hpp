#pragma once
// "Why did my graph miss the cache?": each FX graph cache miss of a TORCH_TRACE log compared with
// the cached entries under an Inductor root; the entry whose key components are closest, and the
// components that differ, say what changed (a config, an input's shape, the graph itself).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/debug_lines.hpp"
#include "inductor/guard_lookup.hpp"
#include "inductor/key_diff.hpp"
#include "inductor/opened_root.hpp"
#include "trace/trace_log.hpp"
#include "trace/trace_run.hpp"
#include "util/result.hpp"

namespace kiln::trace {

// A cached FX graph entry with the components of its key.
struct KeyedEntry {
    std::string path;  // relative to the root: fxgraph/<xx>/<key>/<entry>
    std::string key;   // the key dir's name ("f...")
    std::vector<inductor::KeyComponent> components;
    std::optional<std::int64_t> mtime_ns;  // when the entry was written (file mtime)
};

// Every fxgraph entry under `root` that records its debug lines; entries that fail to decode are
// skipped and counted in `skipped` (a miss analysis should not fail on one broken file).
struct KeyedEntries {
    std::vector<KeyedEntry> entries;
    std::vector<std::string> skipped;  // "path: reason"
    // false for a Mega-Cache blob's temporary root: its files were written when it was unpacked, so
    // their mtimes say nothing of when torch wrote the entries (every mtime_ns is then nullopt).
    bool write_times_known = true;
};
// The opened root (a command's: frontend::open_cache), read through its descriptor.
Result<KeyedEntries> load_keyed_entries(const inductor::OpenedRoot& root, bool write_times_known = true);
// A root found by its path (startup's root beside the logs, never one a command was given): opened
// once (inductor::open_root_dir), then read as above.
Result<KeyedEntries> load_keyed_entries(const std::filesystem::path& root, bool write_times_known = true);

// A blob's entries have no write times, but an entry whose key this run missed was written by it,
// right after that miss: the earliest such event's time stands in for its mtime, so later misses are
// compared with it and earlier ones are not, as with a root's mtimes. Other entries stay undated.
void date_entries_by_run(KeyedEntries& cached, const TraceRun& run);

struct MissExplanation {
    std::optional<std::string> closest_path;  // nullopt: nothing to compare with
    std::optional<std::string> closest_key;
    inductor::ComponentDiff diff;  // a = the event's components, b = the entry's
    std::string note;              // why there is no comparison, when there is none
};

// Compares a key miss with the entries; an entry under the event's own key is left out (the miss
// wrote it), and so is every entry written at or after the miss when both times are known (it cannot
// have been the one the run was looking for). Ties go to the entry that sorts first.
MissExplanation explain_miss(const CacheEvent& event, const KeyedEntries& cached);

// What kind of event it is, from the trace (cache_status_detailed / cache_state): "hit", "key miss"
// (no entry under the key), "guard miss" (entries under the key, none held), "bypass", or "miss" when
// the trace does not say which.
std::string miss_class(const CacheEvent& event);

// A guard miss: the entries under the event's own key dir, each evaluated with the symbol values of
// the compile that missed (create_symbol records), with the first failing conjunct. Never another key.
struct GuardSymbolValue {
    std::string name;    // "t0"
    std::string symbol;  // "s77"
    std::optional<std::int64_t> value;
    std::string source;  // "L['x'].size()[0]"
};
struct GuardMissEntry {
    inductor::GuardCheck check;
    std::optional<std::int64_t> mtime_ns;
    bool written_after = false;  // written at or after the miss (by this compile, usually)
};
struct GuardMissExplanation {
    std::string key_dir;  // relative to the root
    std::vector<GuardSymbolValue> symbols;
    std::vector<GuardMissEntry> entries;  // torch's lookup order
    std::string note;                     // why the entries could not be evaluated, when they could not
};
// `write_times_known` false (a blob's root): no entry is said to be written after the miss.
// The key dir is read beneath the opened root, through its descriptor.
GuardMissExplanation explain_guard_miss(const CacheEvent& event, const TraceCompile* compile,
                                        const inductor::OpenedRoot& root, bool write_times_known = true);

// kiln-cli misses --json: {"events": [{"index", "cache" ("fx_graph" | "aotautograd"), "label" ("FX" |
// "AOT"), "fx_events"? (AOT: the indices of its compile's FX events), "aot_event"? (FX), "log", "line", "pid", "compile_id", "function", "file",
// "first_line", "user_frame"? ({"function", "file", "line", "code"}: when the compiled frame is torch's), "key", "state", "class", "time", "local_time", "event_time_ns", "time_taken_ns",
// "time_saved_ns", "guard_expr"?, "reason"?, "closest"?, "guard_miss"?, "note"?}], "entries_compared"?,
// "skipped"?} for the fx_graph and aotautograd events (FX index: as LOG#N names them; AOT events are
// numbered apart). With a root, a key miss gets
// "closest" ({"entry", "key", "differing", "changed": [{"component", "event", "entry"}], "same"} or null:
// event = this run, entry = cached) and a guard miss "guard_miss" ({"key_dir", "symbols", "entries"}).
nlohmann::ordered_json misses_to_json(const TraceRun& run, const inductor::OpenedRoot* root,
                                      const KeyedEntries* cached);

}  // namespace kiln::trace
