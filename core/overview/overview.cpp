#include "overview/overview.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "health/check.hpp"
#include "inductor/compile_timeline.hpp"
#include "inductor/evict.hpp"
#include "inductor/scanner.hpp"
#include "portability/portable.hpp"
#include "portability/sources.hpp"
#include "timings/collect.hpp"
#include "timings/compile_times.hpp"

namespace kiln::overview {

namespace {

bool cancelled(const OverviewOptions& o) { return o.cancel && o.cancel->load(std::memory_order_relaxed); }

std::string key_of(const std::string& entry_path) {
    return std::filesystem::path(entry_path).parent_path().filename().string();
}

// Graph entries with their compile times, slowest first, named by the frame that compiled them when a
// TORCH_TRACE directory beside the root says.
void fill_entries(Overview& o, const inductor::ScanResult& scan, const OverviewOptions& options) {
    auto times = timings::compile_times_of(scan, options.cancel);
    const auto frames = inductor::frames_beside_root(o.root);
    std::map<std::string, std::int64_t> ns_of;
    for (const auto& g : times.graphs) ns_of[g.path] = g.ns;
    for (const auto& a : scan.artifacts) {
        if (a.category == inductor::Category::aotautograd) ++o.aot_entries;
        if (a.category != inductor::Category::fxgraph) continue;
        GraphEntryRow row;
        row.path = a.path;
        row.key = key_of(a.path);
        if (auto it = frames.find(row.key); it != frames.end()) row.name = it->second.label();
        if (auto it = ns_of.find(a.path); it != ns_of.end()) row.compile_ns = it->second;
        o.entries.push_back(std::move(row));
    }
    o.entry_errors = std::move(times.errors);
    std::stable_sort(o.entries.begin(), o.entries.end(), [](const GraphEntryRow& a, const GraphEntryRow& b) {
        return a.compile_ns.value_or(-1) > b.compile_ns.value_or(-1);
    });
}

void fill_ops(Overview& o) {
    auto set = timings::collect_timings({std::filesystem::path(o.root)});
    if (!set.ok()) return;
    o.timing_sources = set->sources.size();
    for (std::size_t i = 0; i < set->ops.size(); ++i) {
        const auto& op = set->ops[i];
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
        o.ops.push_back(std::move(row));
    }
}

void fill_portability(Overview& o, const OverviewOptions& options) {
    Result<portability::Fingerprint> target = options.target ? Result<portability::Fingerprint>(*options.target)
                                                             : portability::this_machine_fingerprint(std::nullopt);
    if (!target.ok()) {
        o.portability.error = target.error().str();
        return;
    }
    portability::PortableOptions po;
    po.cancel = options.cancel;
    auto report = portability::assess_root(o.root, *target, po);
    if (!report.ok()) {
        o.portability.error = report.error().str();
        return;
    }
    const auto& s = report->summary;
    const auto& fx = s.counts[static_cast<std::size_t>(portability::ItemKind::fx_graph)];
    const auto& aot = s.counts[static_cast<std::size_t>(portability::ItemKind::aot_autograd)];
    o.portability.target = report->target.label();
    o.portability.graph_entries = fx.total + aot.total;
    o.portability.hit = fx.hit + aot.hit;
    o.portability.miss = fx.miss + aot.miss;
    o.portability.unknown = fx.unknown + aot.unknown;
    if (!s.lines.empty()) o.portability.answer = s.lines.front();
    o.portability.lines.assign(s.lines.begin() + (s.lines.empty() ? 0 : 1), s.lines.end());
}

void fill_evict(Overview& o) {
    o.evict.limit = std::string("--older-than ") + kDefaultEvictAge;
    inductor::EvictPolicy policy;
    policy.dry_run = true;
    auto age = inductor::parse_age_ns(kDefaultEvictAge);
    if (!age.ok()) {
        o.evict.error = age.error().str();
        return;
    }
    policy.older_than_ns = *age;
    auto report = inductor::evict_cache(o.root, policy);
    if (!report.ok()) {
        o.evict.error = report.error().str();
        return;
    }
    o.evict.groups = report->removed.size();
    o.evict.freed_bytes = report->freed_bytes;
    o.evict.bytes_before = report->bytes_before;
}

}  // namespace

Result<Overview> compute_overview(const std::filesystem::path& root, const OverviewOptions& options) {
    inductor::ScanOptions so;
    so.cancel = options.cancel;
    KILN_TRY(auto scan, inductor::scan_cache(root, so));
    Overview o;
    o.root = root.string();
    o.stats = inductor::compute_stats(scan);
    for (const auto& d : inductor::find_trace_dirs(root)) o.trace_dirs.push_back(d.string());
    const auto stop = [&] { return make_error(Errc::cancelled, "cancelled", root.string()); };
    fill_entries(o, scan, options);
    if (cancelled(options)) return stop();
    fill_ops(o);
    if (cancelled(options)) return stop();
    fill_evict(o);
    if (cancelled(options)) return stop();
    fill_portability(o, options);
    if (cancelled(options)) return stop();
    if (auto problems = health::count_problems(root); problems.ok()) o.health.problems = *problems;
    else o.health.error = problems.error().str();
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
