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

struct ChoiceReport {
    std::string id;    // "<op>_<n>", n = position in the enumeration (0 = the reference)
    std::string key;   // the timing cache's choice key: <op>-<code hash>
    std::string name;  // parameters, "BLOCK_M=32, BLOCK_N=64"
    Bindings params;
    bool is_reference = false;
    bool from_cache = false;
    double ms = 0;                // +inf when it failed
    std::string status = "ok";    // ok | error | mismatch | timeout | crash | compile_error | cached | skipped
    std::string reason;
    std::string device;
    double compile_seconds = 0;
    std::string library;          // the compiled .so (empty on a cache hit)
    TimingStats stats;
    double overhead_seconds = 0;  // wall time of its benchmark beyond the kernel's own runs and the check
    double verify_seconds = 0;    // copying its output back and comparing it with the reference's
    nlohmann::json details = nlohmann::json::object();  // the worker's: run counts, phases_ms, ...
};

struct TuneReport {
    std::string op;
    std::string inputs_key;
    std::string precision;
    std::string device;        // devices used, "cuda:0,cuda:1"
    std::vector<ChoiceReport> choices;
    std::string best;          // key of the fastest choice
    bool cache_hit = false;
    bool in_process = false;
    std::filesystem::path session_log;
    std::filesystem::path cache_file;
    double bench_seconds = 0;
    double precompile_seconds = 0;
    double prepare_seconds = 0;  // starting the workers and warming up the devices, during precompile
    std::vector<nlohmann::json> workers;  // pongs of the pool's workers
};

Result<TuneReport> tune(const TuningSpec& spec, const TuneOptions& options);

// Inductor's stderr block: "AUTOTUNE op(AxB, CxD)", strides, dtypes, the best choices with ms and
// % of best, then "SubProcess AUTOTUNE benchmarking takes X seconds and Y seconds precompiling".
std::string format_autotune_table(const TuneReport& report, const TuningSpec& spec, std::size_t top = 10);

}  // namespace kiln::autotune
