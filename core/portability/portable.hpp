#pragma once
// "Will this cache hit there?": every graph entry (fxgraph, AOTAutograd), autotune timing cache,
// `.best_config` and Triton kernel dir of a cache root judged against a target environment, and a
// summary: how many would hit, which components differ (cached -> target), what is unknown, and
// what in the keys ties them to one machine without being hardware (absolute paths, device indices).
#include <array>
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/scanner.hpp"
#include "portability/fingerprint.hpp"
#include "portability/key_env.hpp"
#include "portability/verdict.hpp"
#include "util/result.hpp"

namespace kiln::portability {

enum class ItemKind : std::uint8_t { fx_graph, aot_autograd, timing_cache, best_config, triton_kernel };
inline constexpr std::size_t kItemKinds = 5;
std::string_view item_kind_name(ItemKind k);

struct PortableItem {
    std::string path;  // relative to the root (a Triton kernel dir: the dir)
    ItemKind kind = ItemKind::fx_graph;
    std::string key;  // graph entries: the key dir's name
    Assessment assessment;
    std::vector<Hazard> hazards;  // graph entries only
};

struct KindCounts {
    std::size_t total = 0, hit = 0, miss = 0, unknown = 0;
};

// A component across many items: how many, with the first values seen.
struct ComponentTally {
    std::string component;
    std::size_t items = 0;
    std::string cached, target, why;  // the first difference / reason seen
};

struct PortableSummary {
    std::array<KindCounts, kItemKinds> counts{};
    std::vector<ComponentTally> differing;  // over graph entries, most frequent first
    std::vector<ComponentTally> unknown;    // over graph entries
    std::vector<ComponentTally> hazards;    // over graph entries
    std::vector<std::string> lines;         // the summary in words, answer first
};

struct PortableReport {
    std::string root;
    Fingerprint target;
    std::vector<PortableItem>
        items;  // graph entries, timing caches, best_configs, Triton dirs (scan order within kind)
    std::vector<std::string> skipped;  // files that could not be read: "path: reason"
    // PGO profiles (dynamo/code_state_<job>_<rank>_<tag>.pkl): read only by a process of the same job
    // id, rank and tag, so bound to the job's layout rather than to the hardware.
    std::vector<std::string> pgo_profiles;
    PortableSummary summary;
};

class SeenKeys;

struct PortableOptions {
    unsigned threads = 0;  // 0: the CPUs this process may use
    const std::atomic<bool>* cancel = nullptr;
    // summarize_scan: the graph entries' keys as a read made anyway saw them (seen_keys.hpp); those
    // entries are not read again. Null: every entry is read.
    const SeenKeys* seen = nullptr;
};

// The opened root walked and read through its descriptor.
Result<PortableReport> assess_root(const inductor::OpenedRoot& root, const Fingerprint& target,
                                   const PortableOptions& options = {});
// The same over a scan already made (the GUI's browser scan, artifacts kept), read through the
// directory it walked (ScanResult::root_fd): its items do not depend on how .py files were
// classified, so any scan of the root gives assess_root's report.
Result<PortableReport> assess_scan(const inductor::ScanResult& scan, const Fingerprint& target,
                                   const PortableOptions& options = {});

// assess_scan's summary alone (summarize's counts, tallies and lines, byte for byte), without keeping the
// items: they are assessed a chunk at a time from the scan's kept files and folded in the report's order
// (the GUI's Overview; the Portability view gets the full report). Not an Inductor root: assess_root's.
Result<PortableSummary> summarize_scan(const inductor::ScanResult& scan, const Fingerprint& target,
                                       const PortableOptions& options = {});
// The same in two steps, for a caller whose read of the graph entries is still running (the GUI): every
// other item (timing caches, .best_config files, Triton kernel dirs) first, the graph entries once
// `options.seen` holds them. The two folds touch different parts of the summary: summarize_scan's, byte
// for byte. The part views nothing of the scan; the same scan is passed to both.
struct ScanSummaryPart;
Result<std::shared_ptr<ScanSummaryPart>> summarize_scan_files(const inductor::ScanResult& scan,
                                                              const Fingerprint& target,
                                                              const PortableOptions& options = {});
Result<PortableSummary> summarize_scan_graphs(ScanSummaryPart& part, const inductor::ScanResult& scan,
                                              const PortableOptions& options = {});

// One graph entry against a target, as assess_root judges each: for `kiln-cli check`'s stale entries,
// read during check's own walk. `prepared` is prepare_target(target), made once per run; `rel` is
// relative to `root_fd`; `scratch` is the calling thread's read buffer.
Fingerprint prepare_target(const Fingerprint& target);
Result<PortableItem> assess_graph_entry(const std::string& rel, ItemKind kind, const std::string& key,
                                        const Fingerprint& prepared, int root_fd, std::string& scratch);

// The counts, tallies and the lines in words of `r.items` (assess_root fills it in).
PortableSummary summarize(const PortableReport& r);

// {"root", "target": fingerprint JSON, "entries": [{"path", "kind", "verdict", "differs": [{"component",
// "cached", "target"}], "unknown": [{"component", "why"}], "hazards": [...]}], "summary": {...}}
nlohmann::ordered_json report_to_json(const PortableReport& r);

}  // namespace kiln::portability
