#pragma once
// The desktop app's first screen as a value: what a cache holds and what to look at first, computed
// by the same core functions the CLI prints (`stats`, the graph entries and their compile times,
// `timings`, `portable --target local`, `evict --older-than` as a dry run), so each number can be
// checked against the command that prints it.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inductor/evict_needs.hpp"
#include "inductor/graph_list.hpp"
#include "inductor/scanner.hpp"
#include "inductor/stats.hpp"
#include "portability/fingerprint.hpp"
#include "timings/compile_times.hpp"
#include "timings/timing_model.hpp"
#include "util/result.hpp"

namespace kiln::portability {
class SeenKeys;
struct ScanSummaryPart;
}  // namespace kiln::portability

namespace kiln::overview {

struct GraphEntryRow {
    std::string path;  // the entry file
    std::string key;   // its key dir's name ("fmo2n45u…")
    std::string name;  // the frame that compiled it ("mm (gen_inductor_cache.py:94)"), "" when no trace says
    std::optional<std::int64_t> compile_ns;  // _time_taken_ns
};

struct AutotunedOp {
    std::string op, inputs, precision, device;
    std::size_t choices = 0;
    std::string winner;                  // the fastest choice's name
    std::optional<double> best_ms;       // its time
    std::optional<double> runner_up_ms;  // the next fastest: the winner's margin
    std::string source;                  // the file it came from
    std::size_t op_index = 0;            // its index in collect_timings' ops (the Autotune view's op list)
    std::string winner_name;  // the winner as every view names it: "triton_mm (BLOCK 64×32×128, 5 stages, 4 warps)"
};

struct PortabilityGlance {
    std::string target;  // the target's device name, or what it is ("this machine")
    std::size_t graph_entries = 0, hit = 0, miss = 0, unknown = 0;  // FX and AOTAutograd entries together
    std::string answer;              // the summary's first line, as `kiln-cli portable` prints it
    std::vector<std::string> lines;  // the rest of the summary
    std::string error;               // when it could not be assessed
};

struct EvictGlance {
    std::string limit;  // the command line it is: "--older-than 30d"
    std::size_t groups = 0;
    std::uint64_t freed_bytes = 0;
    std::uint64_t bytes_before = 0;
    std::string error;
};

struct HealthGlance {
    std::size_t problems = 0;  // what `kiln-cli check ROOT` reports (stale entries apart, not counted)
    std::string error;         // when the check could not run
};

// The biggest avoidable compile cost of the TORCH_TRACE logs beside the root (startup::analyze_startup,
// what `kiln-cli startup` prints): the process with the most avoidable seconds and its largest item.
struct StartupGlance {
    bool computed = false;  // false until the section ran (and when there are no logs)
    std::string process;    // its label ("warm", "h200/warm")
    double compile_seconds = 0;
    std::string what, fix;  // the biggest avoidable item
    double seconds = 0;
    std::string inferred;  // its basis when no span measured it (startup::AvoidableCost::basis), else ""
    std::string headline;  // "this process spent S compiling; A would go with X, ..."
    std::string error;
};

// Eviction's default limit as the Overview applies it: groups unused for 30 days (`evict --older-than 30d`).
inline constexpr const char* kDefaultEvictAge = "30d";

struct Overview {
    std::string root;
    std::string blob;  // the Mega-Cache blob shown ("" for a root): `root` is its unpacked copy; commands name it
    inductor::CacheStats stats;
    std::vector<GraphEntryRow> entries;  // FX graph entries, slowest compile first (no time: last)
    std::size_t aot_entries = 0;
    std::vector<std::string> entry_errors;  // entries that did not decode: "path: reason"
    std::vector<AutotunedOp> ops;           // autotuned ops (two or more choices), in the timing sources' order
    std::size_t timing_sources = 0;
    std::size_t kernel_configs = 0;  // per-kernel configs (.best_config): what a blob carries of autotuning
    PortabilityGlance portability;
    EvictGlance evict;
    HealthGlance health;
    std::vector<std::string> trace_dirs;  // TORCH_TRACE directories beside the root (the compile timeline)
    StartupGlance startup;                // from those logs (startup_section)
};

struct OverviewOptions {
    // The machine to judge portability against; empty: this machine as `portable --target local` sees it.
    std::optional<portability::Fingerprint> target;
    const std::atomic<bool>* cancel = nullptr;
    // portability_section: the graph entries' keys as a read made anyway saw them (the GUI's one read);
    // null: it reads them itself.
    const portability::SeenKeys* seen_keys = nullptr;
};

// The opened root (frontend::open_cache), walked and read through its descriptor: a path swapped after
// the open never changes what it shows. Errc::invalid_argument for a root not opened; every other
// section fails on its own (its error field, or entry_errors) so one unreadable part never hides the rest.
Result<Overview> compute_overview(const inductor::OpenedRoot& root, const OverviewOptions& options = {});
// The same from a scan already made (the GUI's browser scan, artifacts kept): no second walk.
Result<Overview> compute_overview(const inductor::ScanResult& scan, const OverviewOptions& options = {});

// The sections one by one, each from the scan (the GUI shows the head at once and fills the rest as
// they come). compute_overview is the head plus every section.
Overview overview_head(const inductor::ScanResult& scan);  // root, stats, trace dirs; no file read

struct EntriesSection {
    std::vector<GraphEntryRow> entries;  // Overview::entries
    std::size_t aot_entries = 0;
    std::vector<std::string> entry_errors;
};
EntriesSection entries_section(const inductor::ScanResult& scan, const std::atomic<bool>* cancel = nullptr);
// The same from the compile times of this scan (timings::compile_times_of, or CompileTimesFromRows of
// the GUI's one read of the entries, which also fills the Compile times view).
EntriesSection entries_section(const inductor::ScanResult& scan, const timings::CompileTimes& times);
// The same from `ls`'s rows of this scan (inductor::list_graphs(scan)).
EntriesSection entries_section(const inductor::ScanResult& scan, const inductor::GraphList& list);
// The same from ls's rows as they come (trace::for_each_named_graph_batch): keeps the FX entries' times
// and decode errors only, never the rows; finish gives what entries_section(scan, list) gives.
class EntriesFromRows {
public:
    void add(const inductor::GraphRow& row) { times_.add(row); }
    EntriesSection finish(const inductor::ScanResult& scan) { return entries_section(scan, times_.finish(scan)); }

private:
    timings::CompileTimesFromRows times_;
};

struct OpsSection {
    std::vector<AutotunedOp> ops;
    std::size_t timing_sources = 0;
    std::size_t kernel_configs = 0;
};
OpsSection ops_section(const inductor::OpenedRoot& root);  // collect_timings over the opened root, then:
OpsSection ops_section(const timings::TimingSet& set);     // the GUI's one read of the root (op_index: its ops)
PortabilityGlance portability_section(const inductor::ScanResult& scan, const OverviewOptions& options = {});
// The same in two steps (portability::summarize_scan_files, then _graphs): the GUI runs the first beside
// its read of the graph entries and the second once that read is in (OverviewOptions::seen_keys).
struct PortabilityPart {
    std::shared_ptr<portability::ScanSummaryPart> part;  // null when `glance` already holds an error
    std::string target;
    PortabilityGlance glance;
};
PortabilityPart portability_files(const inductor::ScanResult& scan, const OverviewOptions& options = {});
PortabilityGlance portability_graphs(PortabilityPart& part, const inductor::ScanResult& scan,
                                     const OverviewOptions& options = {});
// `needs`: what a read of the scan's graph entries made anyway saw of them (the GUI's one read), so the
// dry run reads no entry again; null: it reads them itself.
EvictGlance evict_section(const inductor::ScanResult& scan, const inductor::EntryNeeds* needs = nullptr);
HealthGlance health_section(const inductor::ScanResult& scan, const std::atomic<bool>* cancel = nullptr);
StartupGlance startup_section(const std::vector<std::string>& trace_dirs);

// Which sections are still being computed (the GUI shows them as such, never as zeros).
struct SectionsPending {
    bool entries = false, ops = false, portability = false, evict = false, health = false;
    bool any() const { return entries || ops || portability || evict || health; }
};

void apply(Overview& o, EntriesSection s);
void apply(Overview& o, OpsSection s);

// The slowest compiles: the first `n` entries that have a time.
std::vector<GraphEntryRow> slowest_compiles(const Overview& o, std::size_t n);

}  // namespace kiln::overview
