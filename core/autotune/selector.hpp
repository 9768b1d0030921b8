#pragma once
// Algorithm selection for a tuning spec (select_algorithm.py AlgorithmSelectorCache with
// PersistentCache): look the choices up in the timing cache (a full hit benchmarks nothing),
// precompile the rest in parallel, run the reference choice, benchmark every other choice in the
// device workers (or in this process), verify each output against the reference, record every
// measurement in the session log and merge the timings into the cache.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "autotune/devices.hpp"
#include "autotune/spec.hpp"
#include "autotune/tune_report.hpp"
#include "autotune/tuning_process.hpp"

namespace kiln::autotune {

struct TuneOptions {
    std::vector<Device> devices;  // empty: the spec's, else default_devices()
    bool in_process = false;
    std::filesystem::path cache_root;
    std::optional<std::filesystem::path> global_cache_dir;
    std::filesystem::path session_log;  // empty: SessionLog::default_path
    std::string worker_path;
    Timeouts timeouts;
    unsigned compile_workers = 0;
    std::function<void(const std::string&)> progress;  // optional human-readable progress lines
};

Result<TuneReport> tune(const TuningSpec& spec, const TuneOptions& options);

}  // namespace kiln::autotune
