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

#include "tuning/spec.hpp"
#include "tuning/tune_report.hpp"
#include "worker/devices.hpp"
#include "worker/tuning_process.hpp"

namespace kiln::tuning {

struct TuneOptions {
    std::vector<worker::Device> devices;  // empty: the spec's, else worker::default_devices()
    bool in_process = false;
    std::filesystem::path cache_root;
    std::optional<std::filesystem::path> global_cache_dir;
    std::filesystem::path session_log;  // empty: SessionLog::default_path
    std::string worker_path;
    worker::Timeouts timeouts;
    unsigned compile_workers = 0;
    std::function<void(const std::string&)> progress;  // optional human-readable progress lines
};

Result<TuneReport> tune(const TuningSpec& spec, const TuneOptions& options);

}  // namespace kiln::tuning
