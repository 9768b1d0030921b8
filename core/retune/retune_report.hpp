#pragma once
// What `kiln-cli retune` reports: every autotuned op of a cache root's timing caches, each choice
// resolved to what Kiln runs (a Triton choice's cubin and launch, an extern choice's cuBLAS call)
// or why it cannot run, and after a run each choice's measurements per device. The JSON is the
// contract of `retune --list --json` and `retune --json`: another tool writes torch's timing cache,
// Redis and lookup tables from it, so the documented fields keep their names and meanings.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/cublas.hpp"
#include "util/result.hpp"
#include "worker/triton_launch.hpp"

namespace kiln::retune {

enum class ChoiceKind { triton, extern_op, other };
const char* choice_kind_name(ChoiceKind k);  // "triton", "extern", "other"

struct Measurement {
    int device = 0;      // the GPU's index as the driver numbers it
    std::string status;  // "ok", "failed", "wrong", "timeout", "crashed"
    // The statistic the run asked for (RetuneReport::statistic): by default the one torch's
    // benchmarker returns and writes (2.11: the minimum over its event pairs), else the median.
    std::optional<double> ms;
    double spread_ms = 0;  // noise: (p80 - p20) / 2 of the timed runs
    std::string why;       // the reason of a status other than ok
    // The kernel itself could not launch or run on this GPU (shared memory over the device's
    // limit, a launch error): torch records such a choice as inf, so the hand-back writes Infinity.
    bool torch_inf = false;
    double min_ms = 0;
    double median_ms = 0;
    int runs = 0;
    double kernel_seconds = 0;         // inside the kernel's runs (warm-up and timed)
    double wall_seconds = 0;           // from sending the request to having the result
    double worker_seconds = 0;         // inside the worker (the rest of wall_seconds is the channel)
    nlohmann::ordered_json phases_ms;  // where the worker's time went (CudaBench's phases), if known
};

struct RetuneChoice {
    std::string name;  // the timing cache's choice key, e.g. "triton_mm-c<hash>", "mm-c<hash>"
    ChoiceKind kind = ChoiceKind::other;
    std::string module;  // a Triton choice's benchmark module (<root>/<hh>/c<hash>.py)
    std::string binary;  // its cubin; for an extern choice, the cuBLAS function
    nlohmann::ordered_json config = nlohmann::ordered_json::object();  // BLOCK_*, num_warps, num_stages...
    std::optional<std::array<std::int64_t, 3>> grid;
    std::string grid_rule;  // e.g. "cdiv(M,BLOCK_M)*cdiv(N,BLOCK_N), 1, 1"
    bool runnable = false;
    std::string why;                    // why it cannot run (empty when runnable)
    std::optional<double> recorded_ms;  // none: torch recorded a failure (inf)
    // Launch details (Triton), call plan (extern).
    std::string kernel;                          // the Triton kernel's def name
    std::vector<worker::KernelArg> args;         // the launch signature
    std::optional<worker::TritonBinary> triton;  // JSON "launch": its cubin and ptx relative to the report's root
    std::optional<cuda::GemmCall> gemm;
    std::vector<Measurement> measured;
};

struct RecordedFor {
    std::string system_hash;
    std::string device;  // the GPU name the cache was written on
    std::string triton;  // Triton's version key as the cache holds it
    std::string cuda;
};

struct RetuneOp {
    std::string op;         // "mm", "addmm", "bmm", ...
    std::string inputs;     // the inputs key exactly as the timing cache holds it
    std::string precision;  // "highest", "high", ...
    RecordedFor recorded_for;
    std::string cache_file;  // the timing cache file it came from
    std::vector<RetuneChoice> choices;
};

struct DeviceDesc {
    int index = 0;
    std::string name;
    std::string arch;  // "sm_90"
};

struct RetuneReport {
    std::string root;
    std::vector<RetuneOp> ops;
    std::vector<DeviceDesc> devices;  // empty for --list
    double wall_seconds = 0;          // the run's wall time (0 for --list)
    std::string statistic;            // what each Measurement::ms is (statistic_description)
    // Where the run's wall time went: "inventory", "pool_start", "references", "choices" (seconds).
    std::map<std::string, double> phase_seconds;
    // When each step ended, in seconds from the run's start (run.cpp says which), and each
    // worker's start-up and busy span: where a multi-GPU run's fixed cost goes.
    nlohmann::json timeline;
    std::vector<std::string> session_logs;
    std::vector<std::string> warnings;
};

// "torch-min: torch 2.11's InductorBenchmarker ..." for worker::statistic_name's names.
std::string statistic_description(const std::string& name);

nlohmann::ordered_json to_json(const RetuneReport& r);
Result<RetuneReport> retune_report_from_json(const nlohmann::json& j);

}  // namespace kiln::retune
