#pragma once
// Quarantine: problem groups moved whole (a key dir, a Triton kernel dir, a module with its sidecars)
// into <root>/.kiln-quarantine/<id>/ at the same relative paths, with a manifest.json saying what
// was moved and why; restore moves them back. Like eviction (inductor/evict.hpp), everything goes
// through one descriptor of the root (renameat, O_NOFOLLOW path walks): nothing outside the root is
// touched, no symlink is followed (a link is moved as a link), a group whose lock is held or that
// changed since the scan is left alone, and restore never replaces a file that came back meanwhile.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "health/check.hpp"
#include "util/result.hpp"

namespace kiln::health {

struct MovedItem {
    std::string path;  // relative to the root (and to the quarantine folder)
    bool dir = false;
};

struct QuarantinedGroup {
    std::string group;                  // relative path of the group
    std::vector<std::string> problems;  // the kinds that sent it here
    std::vector<MovedItem> items;
};

struct QuarantineManifest {
    std::string id;       // "20260131T123456Z-4242"
    std::string created;  // ISO UTC
    std::string root;
    std::vector<QuarantinedGroup> groups;
};
nlohmann::ordered_json to_json(const QuarantineManifest& m);
Result<QuarantineManifest> manifest_from_json(const nlohmann::json& j);

struct QuarantineRequest {
    std::string group;                  // relative path of a group as check reports it
    std::vector<std::string> problems;  // kind names, for the manifest
};

struct QuarantineOutcome {
    QuarantineManifest manifest;       // what was moved (empty groups: nothing moved)
    std::vector<std::string> skipped;  // "group: reason"
};

// Every function here works through the opened root's descriptor (frontend::open_cache opened it).
// Moves the requested groups into a new quarantine, or into `into_id`'s (its manifest grows). Errors:
// the quarantine folder cannot be made, the manifest cannot be written (then what was moved is moved
// back).
Result<QuarantineOutcome> quarantine_groups(const inductor::OpenedRoot& root,
                                            const std::vector<QuarantineRequest>& groups,
                                            const std::string& into_id = {});

// The groups of a report to quarantine: each problem's group (with strict, each stale entry's too).
std::vector<QuarantineRequest> quarantine_requests(const HealthReport& r, bool strict);

// Check, quarantine, check again until healthy: moving a group can break others (an AOT entry
// whose FX graph went, the module's lock); every round goes into the same quarantine (at most 8).
struct QuarantineRun {
    HealthReport before;  // the first check
    HealthReport after;   // the last check
    QuarantineOutcome moved;
};
Result<QuarantineRun> quarantine_problems(const inductor::OpenedRoot& root, const CheckOptions& options, bool strict);

struct RestoreOutcome {
    std::vector<std::string> restored;  // relative paths
    std::vector<std::string> skipped;   // "path: reason" (left in the quarantine, manifest kept)
};
// Moves quarantine `id` back. Errc::not_found for an unknown id, invalid_argument for a malformed one.
Result<RestoreOutcome> restore_quarantine(const inductor::OpenedRoot& root, const std::string& id);

// The quarantines of `root`, oldest first (manifests that do not parse are skipped).
std::vector<QuarantineManifest> list_quarantines(const inductor::OpenedRoot& root);

}  // namespace kiln::health
