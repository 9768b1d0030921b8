#include "overview/overview.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "health/check.hpp"
#include "inductor/evict.hpp"
#include "inductor/scanner.hpp"
#include "portability/portable.hpp"
#include "portability/sources.hpp"
#include "timings/choice_name.hpp"
#include "timings/collect.hpp"
#include "timings/compile_times.hpp"
#include "trace/compile_timeline.hpp"

namespace kiln::overview {

namespace {

bool cancelled(const OverviewOptions& o) { return o.cancel && o.cancel->load(std::memory_order_relaxed); }

std::string key_of(const std::string& entry_path) {
    return std::filesystem::path(entry_path).parent_path().filename().string();
}

void sort_slowest_first(std::vector<GraphEntryRow>& entries) {
    std::stable_sort(entries.begin(), entries.end(), [](const GraphEntryRow& a, const GraphEntryRow& b) {
        return a.compile_ns.value_or(-1) > b.compile_ns.value_or(-1);
    });
}

// Graph entries in scan order with their compile times (`ns_of`, by path relative to the root), named
// by the frame that compiled them when a TORCH_TRACE directory beside the root says; then slowest first.
EntriesSection entries_of(const inductor::ScanResult& scan, const std::map<std::string, std::int64_t>& ns_of,
                          std::vector<std::string> errors) {
    EntriesSection out;
    const auto frames = trace::frames_beside_root(scan.root);
    for (const auto& a : scan.artifacts) {
        if (a.category == inductor::Category::aotautograd) ++out.aot_entries;
        if (a.category != inductor::Category::fxgraph) continue;
        GraphEntryRow row;
        row.path = a.path();
        row.key = key_of(row.path);
        if (auto it = frames.find(row.key); it != frames.end()) row.name = it->second.label();
        if (auto it = ns_of.find(std::string(a.rel_path())); it != ns_of.end()) row.compile_ns = it->second;
        out.entries.push_back(std::move(row));
    }
    out.entry_errors = std::move(errors);
    sort_slowest_first(out.entries);
    return out;
}

}  // namespace

Overview overview_head(const inductor::ScanResult& scan) {
    Overview o;
    o.root = scan.root;
    o.stats = inductor::compute_stats(scan);
    for (const auto& d : trace::find_trace_dirs(scan.root)) o.trace_dirs.push_back(d.string());
    return o;
}

EntriesSection entries_section(const inductor::ScanResult& scan, const std::atomic<bool>* cancel) {
    return entries_section(scan, timings::compile_times_of(scan, cancel));
}

EntriesSection entries_section(const inductor::ScanResult& scan, const timings::CompileTimes& times) {
    std::map<std::string, std::int64_t> ns_of;
    const std::size_t root_prefix = scan.root.size() + 1;  // compile times' paths are absolute
    for (const auto& g : times.graphs) ns_of[g.path.size() > root_prefix ? g.path.substr(root_prefix) : g.path] = g.ns;
    return entries_of(scan, ns_of, times.errors);
}

EntriesSection entries_section(const inductor::ScanResult& scan, const inductor::GraphList& list) {
    EntriesFromRows from;
    for (const auto& r : list.rows) from.add(r);
    return from.finish(scan);
}

OpsSection ops_section(const inductor::OpenedRoot& root) {
    auto set = timings::collect_timings_from({root});
    if (!set.ok()) return {};
    return ops_section(*set);
}

OpsSection ops_section(const timings::TimingSet& set) {
    OpsSection out;
    out.timing_sources = set.sources.size();
    for (std::size_t i = 0; i < set.ops.size(); ++i) {
        const auto& op = set.ops[i];
        if (timings::is_per_kernel_config(op)) ++out.kernel_configs;
        if (op.choices.size() < 2) continue;  // a per-kernel record, not an autotuned choice
        AutotunedOp row{op.op, op.inputs, op.precision, op.device, op.choices.size(), op.best, {}, {}, op.source, i};
        double best = std::numeric_limits<double>::infinity(), second = best;
        for (const auto& c : op.choices) {
            if (!c.ms || *c.ms <= 0) continue;
            if (*c.ms < best) {
                second = best;
                best = *c.ms;
            } else if (*c.ms < second) {
                second = *c.ms;
            }
        }
        if (std::isfinite(best)) row.best_ms = best;
        if (std::isfinite(second)) row.runner_up_ms = second;
        row.winner_name = op.best;
        for (const auto& c : op.choices)
            if (c.name == op.best) {
                row.winner_name = timings::choice_display_name(c);
                break;
            }
        out.ops.push_back(std::move(row));
    }
    return out;
}

PortabilityPart portability_files(const inductor::ScanResult& scan, const OverviewOptions& options) {
    PortabilityPart p;
    Result<portability::Fingerprint> target = options.target ? Result<portability::Fingerprint>(*options.target)
                                                             : portability::this_machine_fingerprint(std::nullopt);
    if (!target.ok()) {
        p.glance.error = target.error().str();
        return p;
    }
    p.target = target->label();
    portability::PortableOptions po;
    po.cancel = options.cancel;
    // The summary alone: the per-file report is the Portability view's (hundreds of MB at a million files).
    auto part = portability::summarize_scan_files(scan, *target, po);
    if (!part.ok()) {
        p.glance.error = part.error().str();
        return p;
    }
    p.part = std::move(part).value();
    return p;
}

PortabilityGlance portability_graphs(PortabilityPart& p, const inductor::ScanResult& scan,
                                     const OverviewOptions& options) {
    if (!p.part) return p.glance;
    PortabilityGlance g;
    portability::PortableOptions po;
    po.cancel = options.cancel;
    po.seen = options.seen_keys;
    auto summary = portability::summarize_scan_graphs(*p.part, scan, po);
    if (!summary.ok()) {
        g.error = summary.error().str();
        return g;
    }
    const auto& s = *summary;
    const auto& fx = s.counts[static_cast<std::size_t>(portability::ItemKind::fx_graph)];
    const auto& aot = s.counts[static_cast<std::size_t>(portability::ItemKind::aot_autograd)];
    g.target = p.target;
    g.graph_entries = fx.total + aot.total;
    g.hit = fx.hit + aot.hit;
    g.miss = fx.miss + aot.miss;
    g.unknown = fx.unknown + aot.unknown;
    if (!s.lines.empty()) g.answer = s.lines.front();
    g.lines.assign(s.lines.begin() + (s.lines.empty() ? 0 : 1), s.lines.end());
    return g;
}

PortabilityGlance portability_section(const inductor::ScanResult& scan, const OverviewOptions& options) {
    PortabilityPart p = portability_files(scan, options);
    return portability_graphs(p, scan, options);
}

EvictGlance evict_section(const inductor::ScanResult& scan, const inductor::EntryNeeds* needs) {
    EvictGlance g;
    g.limit = std::string("--older-than ") + kDefaultEvictAge;
    inductor::EvictPolicy policy;
    policy.dry_run = true;
    auto age = inductor::parse_age_ns(kDefaultEvictAge);
    if (!age.ok()) {
        g.error = age.error().str();
        return g;
    }
    policy.older_than_ns = *age;
    auto report = inductor::evict_dry_run(scan, policy, needs);
    if (!report.ok()) {
        g.error = report.error().str();
        return g;
    }
    g.groups = report->removed.size();
    g.freed_bytes = report->freed_bytes;
    g.bytes_before = report->bytes_before;
    return g;
}

HealthGlance health_section(const inductor::ScanResult& scan, const std::atomic<bool>* cancel) {
    HealthGlance g;
    if (auto problems = health::count_problems(scan, cancel); problems.ok()) g.problems = *problems;
    else g.error = problems.error().str();
    return g;
}

void apply(Overview& o, EntriesSection s) {
    o.entries = std::move(s.entries);
    o.aot_entries = s.aot_entries;
    o.entry_errors = std::move(s.entry_errors);
}

void apply(Overview& o, OpsSection s) {
    o.ops = std::move(s.ops);
    o.timing_sources = s.timing_sources;
    o.kernel_configs = s.kernel_configs;
}

Result<Overview> compute_overview(const inductor::OpenedRoot& root, const OverviewOptions& options) {
    inductor::ScanOptions so;
    so.cancel = options.cancel;
    KILN_TRY(auto scan, inductor::scan_cache(root, so));
    return compute_overview(scan, options);
}

Result<Overview> compute_overview(const inductor::ScanResult& scan, const OverviewOptions& options) {
    Overview o = overview_head(scan);
    const auto stop = [&] { return make_error(Errc::cancelled, "cancelled", scan.root); };
    apply(o, entries_section(scan, options.cancel));
    if (cancelled(options)) return stop();
    apply(o, ops_section(scan.opened_root()));
    if (cancelled(options)) return stop();
    o.evict = evict_section(scan);
    if (cancelled(options)) return stop();
    o.portability = portability_section(scan, options);
    if (cancelled(options)) return stop();
    o.health = health_section(scan, options.cancel);
    if (cancelled(options)) return stop();
    return o;
}

std::vector<GraphEntryRow> slowest_compiles(const Overview& o, std::size_t n) {
    std::vector<GraphEntryRow> out;
    for (const auto& e : o.entries) {
        if (out.size() >= n) break;
        if (e.compile_ns) out.push_back(e);
    }
    return out;
}

}  // namespace kiln::overview
