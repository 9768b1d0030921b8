#include "inductor/stats.hpp"

#include <chrono>
#include <cstdio>
#include <vector>

#include "util/utc_time.hpp"

namespace kiln::inductor {

namespace {

void add_file(CacheStats& s, const Artifact& a) {
    CategoryStats& c = s.categories[static_cast<std::size_t>(a.category)];
    ++c.files;
    c.bytes += a.size;
    if (a.category != Category::triton_compiled) ++c.entries;
    ++s.total_files;
    s.total_bytes += a.size;
    if (s.oldest_mtime_ns == 0 || a.mtime_ns < s.oldest_mtime_ns) s.oldest_mtime_ns = a.mtime_ns;
    if (a.mtime_ns > s.newest_mtime_ns) s.newest_mtime_ns = a.mtime_ns;
    add_unknown_file(s.unknown, a);
}

void add_groups(CacheStats& s, const ScanResult& scan) {
    s.root = scan.root;
    s.kind = scan.kind;
    s.unreadable = scan.unreadable;
    s.quarantine_files = scan.quarantine_files;
    s.quarantine_bytes = scan.quarantine_bytes;
    s.groups = scan.groups.size();
    for (const Group& g : scan.groups) {
        if (g.kind == GroupKind::triton_kernel_dir)
            ++s.categories[static_cast<std::size_t>(Category::triton_compiled)].entries;
        if (g.kind == GroupKind::key_dir && g.category == Category::fxgraph) ++s.fxgraph_keys;
    }
}

}  // namespace

CacheStats compute_stats(const ScanResult& scan) {
    CacheStats s;
    for (const Artifact& a : scan.artifacts) add_file(s, a);
    add_groups(s, scan);
    return s;
}

Result<StatsScan> scan_stats(const OpenedRoot& root, ScanOptions options) {
    StatsScan out;
    options.keep_artifacts = false;
    options.on_artifact = [&out](const Artifact& a) { add_file(out.stats, a); };
    KILN_TRY(out.scan, scan_cache(root, options));
    add_groups(out.stats, out.scan);
    return out;
}

nlohmann::ordered_json to_json(const CacheStats& stats) {
    nlohmann::ordered_json j;
    j["root"] = stats.root;
    nlohmann::ordered_json cats = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < kCategoryCount; ++i) {
        const CategoryStats& c = stats.categories[i];
        if (c.files == 0) continue;
        cats[std::string(category_name(static_cast<Category>(i)))] = {
            {"files", c.files}, {"entries", c.entries}, {"bytes", c.bytes}};
    }
    j["categories"] = std::move(cats);
    j["fxgraph_keys"] = stats.fxgraph_keys;
    j["total"] = {{"files", stats.total_files}, {"bytes", stats.total_bytes}};
    j["unreadable"] = stats.unreadable;
    if (stats.quarantine_files)
        j["quarantine"] = {{"files", stats.quarantine_files}, {"bytes", stats.quarantine_bytes}};
    if (!stats.unknown.empty()) j["unknown_to_kiln"] = to_json(stats.unknown);
    return j;
}

std::string format_bytes(std::uint64_t bytes) {
    static const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1000 && u < 5) {
        v /= 1000;
        ++u;
    }
    char buf[32];
    if (u == 0) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

std::string format_time_utc(std::int64_t ns) {
    if (ns == 0) return "-";
    return format_utc(
        std::chrono::system_clock::time_point(
            std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::nanoseconds(ns))),
        UtcFormat::readable);
}

}  // namespace kiln::inductor
