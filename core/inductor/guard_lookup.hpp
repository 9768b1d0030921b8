#pragma once
// The cache-hit simulator: which entry of an FX graph key dir torch would serve for given sizes
// (docs/inductor-cache-format.md §5). Entries are tried in sorted file-name order, names starting
// with '.' skipped; an entry without guards is a hit; the first whose guards hold is served. An
// entry that cannot be read or decoded is skipped, as torch skips it (and reported); one that is
// not a graph entry at all (a pickle that would run os.system, say) is reported and never served.
// Value types only, for the CLI and the GUI's Guards tab.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inductor/graph_entry.hpp"
#include "inductor/opened_root.hpp"
#include "util/result.hpp"

namespace kiln::inductor {

struct GuardCheck {
    std::string file;                        // entry file name within the key dir
    std::optional<std::string> guards_expr;  // nullopt: the entry has no guards (always a hit)
    bool pass = false;
    std::optional<std::string> failing;  // the first failing conjunct with the values it saw
    std::optional<std::string> error;    // unreadable / not a graph entry / bad guards: skipped
};

struct GuardLookup {
    std::vector<GuardCheck> entries;  // in torch's lookup order
    std::optional<std::string> served;
    bool ambiguous = false;  // more than one entry would hold; the sorted order decided
};

// `sizes` are the values of t0, t1, ... (the graph's SymInt inputs in order).
// Errors: not a graph entry, a guards_expr that is not a string or does not parse, too few sizes.
Result<GuardCheck> check_entry_guards(const GraphEntry& entry, std::string file, std::span<const std::int64_t> sizes);
// A key dir, or a single entry file (then that entry alone is looked up, and its error is the result's).
Result<GuardLookup> lookup_guards(const std::filesystem::path& key_dir_or_entry, std::span<const std::int64_t> sizes);
// The same for the key dir `rel_key_dir` beneath an opened root, read through its descriptor.
Result<GuardLookup> lookup_guards(const OpenedRoot& root, std::string_view rel_key_dir,
                                  std::span<const std::int64_t> sizes);

// {"entries": [{"file", "guards_expr", "pass", "failing"[, "error"]}], "served", "ambiguous"} (guards --json).
nlohmann::ordered_json to_json(const GuardLookup& lookup);

// The entry files of a key dir in lookup order (sorted, dot-names skipped, regular files only).
Result<std::vector<std::filesystem::path>> key_dir_entries(const std::filesystem::path& key_dir);
// The same beneath an opened root (`rel_key_dir` relative to it): the files' paths relative to the root.
Result<std::vector<std::string>> key_dir_entries(const OpenedRoot& root, std::string_view rel_key_dir);

}  // namespace kiln::inductor
