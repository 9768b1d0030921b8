#include "timings/compile_times.hpp"

#include <algorithm>
#include <cmath>

#include "inductor/graph_entry.hpp"
#include "inductor/scanner.hpp"
#include "inductor/stats.hpp"
#include "pickle/buffer.hpp"
#include "pickle/skim.hpp"
#include "util/regular_file.hpp"

namespace kiln::timings {

Result<CompileTimes> read_compile_times(const std::filesystem::path& root, const std::atomic<bool>* cancel) {
    inductor::ScanOptions opts;
    opts.cancel = cancel;
    KILN_TRY(auto scan, inductor::scan_cache(root, opts));
    auto out = compile_times_of(scan, cancel);
    if (cancel && cancel->load(std::memory_order_relaxed))
        return make_error(Errc::cancelled, "cancelled", root.string());
    return out;
}

namespace {

// The bytes per category of the scan: what both ways of reading compile times start from.
CompileTimes with_categories(const inductor::ScanResult& scan) {
    CompileTimes out;
    auto stats = inductor::compute_stats(scan);
    for (std::size_t i = 0; i < inductor::kCategoryCount; ++i) {
        auto cat = static_cast<inductor::Category>(i);
        if (stats[cat].files == 0) continue;
        out.categories.push_back({std::string(inductor::category_name(cat)), stats[cat].files, stats[cat].bytes});
    }
    return out;
}

}  // namespace

CompileTimes compile_times_of(const inductor::ScanResult& scan, const std::atomic<bool>* cancel) {
    CompileTimes out = with_categories(scan);
    for (const auto& a : scan.artifacts) {
        if (cancel && cancel->load(std::memory_order_relaxed)) break;
        // AOTAutograd entries record no time of their own; their graphs are fxgraph entries.
        if (a.category != inductor::Category::fxgraph) continue;
        // Through the directory the scan walked; the bundled binaries are not needed.
        const std::string path = a.path();
        auto file = open_regular_file_beneath(scan.root_fd(), a.rel_path(), path);
        auto buffer = file.ok() ? pickle::skim_opened_file(*file, path)
                                : Result<std::shared_ptr<const pickle::Buffer>>(file.error());
        auto entry = buffer.ok() ? inductor::decode_graph_entry(std::move(*buffer))
                                 : Result<inductor::GraphEntry>(buffer.error());
        if (!entry.ok()) {
            out.errors.push_back(entry.error().str());
            continue;
        }
        if (auto ns = entry->time_taken_ns()) out.graphs.push_back({path, *ns});
    }
    return out;
}

void CompileTimesFromRows::add(const inductor::GraphRow& r) {
    // AOTAutograd entries record no time of their own (compile_times_of reads fxgraph entries only).
    if (r.kind != "fxgraph") return;
    if (!r.error.empty()) error_of_[r.path] = r.error;
    else if (r.compile_ns) ns_of_[r.path] = *r.compile_ns;
}

CompileTimes CompileTimesFromRows::finish(const inductor::ScanResult& scan) {
    CompileTimes out = with_categories(scan);
    for (const auto& a : scan.artifacts) {  // scan order, as compile_times_of gives them
        if (a.category != inductor::Category::fxgraph) continue;
        const std::string rel(a.rel_path());
        if (auto it = error_of_.find(rel); it != error_of_.end()) out.errors.push_back(std::move(it->second));
        else if (auto ns = ns_of_.find(rel); ns != ns_of_.end()) out.graphs.push_back({a.path(), ns->second});
    }
    ns_of_.clear();
    error_of_.clear();
    return out;
}

std::vector<HistogramBin> log_histogram(const std::vector<GraphCompileTime>& graphs) {
    std::vector<HistogramBin> bins;
    if (graphs.empty()) return bins;
    constexpr double per_decade = 4;
    auto bin_of = [](double s) { return static_cast<int>(std::floor(std::log10(std::max(s, 1e-9)) * per_decade)); };
    int lo = bin_of(graphs.front().ns / 1e9), hi = lo;
    for (const auto& g : graphs) {
        lo = std::min(lo, bin_of(g.ns / 1e9));
        hi = std::max(hi, bin_of(g.ns / 1e9));
    }
    for (int b = lo; b <= hi; ++b)
        bins.push_back({std::pow(10.0, b / per_decade), std::pow(10.0, (b + 1) / per_decade), 0});
    for (const auto& g : graphs) ++bins[static_cast<std::size_t>(bin_of(g.ns / 1e9) - lo)].count;
    return bins;
}

}  // namespace kiln::timings
