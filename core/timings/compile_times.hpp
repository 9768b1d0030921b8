#pragma once
// The compile-time view's data: how long Inductor took to compile each cached graph
// (`_time_taken_ns` of every fxgraph entry) and what the cache holds, bytes per category.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "inductor/graph_list.hpp"
#include "inductor/scanner.hpp"
#include "util/result.hpp"

namespace kiln::timings {

struct GraphCompileTime {
    std::string path;  // the entry file
    std::int64_t ns = 0;
};

struct CategorySize {
    std::string category;  // §2 names: "fxgraph", "triton_compiled", ...
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
};

struct CompileTimes {
    std::vector<GraphCompileTime> graphs;  // entries that record a time, in scan order
    std::vector<CategorySize> categories;  // categories that have files, in §2 order
    std::vector<std::string> errors;       // entries that did not decode (path: reason)
};

// One scan of the root plus a symbolic decode of every fxgraph entry (never executes pickles).
Result<CompileTimes> read_compile_times(const std::filesystem::path& root, const std::atomic<bool>* cancel = nullptr);
// The same from a scan already made (stops early, incomplete, when `cancel` is set).
CompileTimes compile_times_of(const inductor::ScanResult& scan, const std::atomic<bool>* cancel = nullptr);
// The same from `ls`'s rows of this scan as they come (inductor::for_each_graph_batch): the GUI reads the
// graph entries once, for the browser's names, the Overview's entries and this view. Keeps the FX
// entries' times and decode errors only, never the rows; finish gives what compile_times_of(scan) gives.
class CompileTimesFromRows {
public:
    void add(const inductor::GraphRow& row);
    CompileTimes finish(const inductor::ScanResult& scan);

private:
    std::unordered_map<std::string, std::int64_t> ns_of_;    // by path relative to the root
    std::unordered_map<std::string, std::string> error_of_;  // the reason it did not decode
};

struct HistogramBin {
    double lo_s = 0, hi_s = 0;  // seconds, [lo, hi)
    int count = 0;
};
// Log-spaced bins (a graph takes from milliseconds to minutes): 4 bins a decade, covering the data.
std::vector<HistogramBin> log_histogram(const std::vector<GraphCompileTime>& graphs);

}  // namespace kiln::timings
