#pragma once
// The benchmark times a cache stored per kernel (`<2>/c<51>.kernel_perf`), read in one walk of the
// root, to compare a re-benchmark with: by kernel name (the sibling module's kernel) and by module
// key (the file's stem, which `kiln-cli rebench -k` prints a prefix of).
#include <atomic>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace kiln::timings {

struct StoredKernelTimes {
    // Kernel name -> ms. Benchmark-harness modules often share a generic name (`triton_`): a name
    // seen more than once is qualified with its module key's first 12 characters, "triton_ (cabc…)",
    // instead of one overwriting the others.
    std::map<std::string, double> by_name;
    std::map<std::string, double> by_key;  // module key (the .kernel_perf's stem) -> ms
    std::vector<std::string> warnings;     // .kernel_perf files that did not read
};

// Walks `root` (an Inductor cache root) for .kernel_perf files. Errors: `root` is not a directory
// (not_found), the walk could not start (io), `cancel` was set (cancelled).
Result<StoredKernelTimes> read_stored_kernel_times(const std::filesystem::path& root,
                                                   const std::atomic<bool>* cancel = nullptr);

// The stored time of one kernel: by its module key when `key_prefix` (3+ characters) starts a
// stored key, else by `kernel` name; nullopt when the cache holds neither.
std::optional<double> stored_time_for(const StoredKernelTimes& stored, std::string_view kernel,
                                      std::string_view key_prefix);

}  // namespace kiln::timings
