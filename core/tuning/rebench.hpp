#pragma once
// Re-benchmarking an Inductor output-code module on each device (`kiln-cli rebench`): one
// kiln-worker per device runs `python MODULE.py [-k]` (inductor_module.hpp). This runs the module's
// code: callers say so to the user. The report's JSON is what `--json` prints and the GUI reads.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.hpp"
#include "worker/protocol.hpp"

namespace kiln::tuning {

struct RebenchOptions {
    std::string module;   // <cache root>/<xx>/<key>.py
    std::string devices;  // "0,1"; empty: CUDA_VISIBLE_DEVICES, else every GPU
    std::string python;   // empty: python3 on PATH
    // TORCHINDUCTOR_CACHE_DIR for the run, chosen by the caller (kiln-cli: --cache-dir, else
    // module_cache_root, else frontend::default_cache_root): core reads no environment for it.
    std::string cache_dir;
    bool kernels = false;    // -k: each kernel instead of the whole graph
    double timeout_s = 600;  // per device
};

struct RebenchDevice {
    std::string device;
    worker::BenchStatus status = worker::BenchStatus::ok;
    double ms = 0;           // the graph's time, or the sum of the kernels'
    nlohmann::json timings;  // {"graph_ms"} or {"kernels": [{"name", "key", "ms", "gb_per_s", ...}]}
    std::string reason;      // why it failed
    bool ok() const { return status == worker::BenchStatus::ok; }
};

struct RebenchReport {
    std::string module, python, torch;
    std::vector<RebenchDevice> devices;
    bool all_ok() const;
};

// The cache root an output-code module sits in (<root>/<xx>/<key>.py), or none.
std::optional<std::filesystem::path> module_cache_root(const std::filesystem::path& module);

// Errors: no such module (not_found), no cache_dir (invalid_argument), no Python with torch
// (unavailable), bad --devices, workers that do not start. A device that fails is a RebenchDevice with its reason, not an error.
Result<RebenchReport> rebench_module(const RebenchOptions& options);

// {"module", "python", "torch", "devices": [{"device", "status", "ms"+"timings" | "reason"}]}
nlohmann::ordered_json to_json(const RebenchReport& report);
Result<RebenchReport> rebench_report_from_json(const nlohmann::json& j);
// A saved `kiln-cli rebench --json` output: a regular file of at most 64 MiB (util/regular_file),
// its JSON and report checked; the error names the path.
Result<RebenchReport> read_rebench_report(const std::filesystem::path& path);

}  // namespace kiln::tuning
