#pragma once
// What the tuner and kiln-worker say to each other (autotune_process.py's Ping/Pong and
// BenchmarkRequest family): requests and results as plain structs, serialised to JSON objects
// that travel as CBOR frames (channel.hpp).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/cublas.hpp"
#include "util/result.hpp"
#include "worker/tensor.hpp"
#include "worker/triton_launch.hpp"

namespace kiln::worker {

enum class RequestKind { ping, test, cpp, cuda, inductor_module, triton, gemm, shutdown };
const char* request_kind_name(RequestKind k);

// Which number a benchmark returns, and how the runs behind it are made.
enum class Statistic : std::uint8_t {
    // torch 2.11's InductorBenchmarker.benchmark_gpu, the number torch writes into its timing cache:
    // one run, 5 estimate pairs, min(100, 25 ms / estimate) timed pairs after 100 flushes, an
    // L2-sized buffer zeroed before every pair; the minimum over all pairs.
    torch_min,
    // Like triton.testing.do_bench: warm-up and timed runs filling `warmup_ms` and `rep_ms`
    // (clamped to [min_reps, max_reps]), the median; for Kiln's own autotuning.
    median,
};
const char* statistic_name(Statistic s);  // "torch-min", "median"
std::optional<Statistic> statistic_from_name(const std::string& name);

struct TimingOptions {
    double warmup_ms = 25;
    double rep_ms = 100;
    int min_reps = 5;
    int max_reps = 10000;
    bool flush_l2 = true;  // CUDA: clear the L2 cache before each timed run
    Statistic statistic = Statistic::median;
};

struct BenchmarkRequest {
    RequestKind kind = RequestKind::ping;
    std::string choice;  // the caller's name for it, echoed in logs
    // Not sent: the pool keeps a worker on one group (a re-tune's op) while it has requests, and
    // starts each worker on a group no other is on, so an op's inputs, reference and first cuBLAS
    // call are made on one device instead of on every device.
    std::string group;

    // Test: "value" | "error" | "segfault" | "abort" | "hang" | "sleep" (sleep test_sleep_ms, then value).
    std::string test_mode;
    double test_value = 0;
    double test_sleep_ms = 0;

    // Cpp / Cuda: a compiled library and the seed's calling convention.
    std::string library_path;
    std::string kernel_name;
    std::vector<TensorMeta> inputs;
    TensorMeta output;
    std::vector<std::int64_t> extra_args;
    std::uint64_t seed = 0;             // inputs are random_storage(meta, seed + i)
    int device_ordinal = 0;             // CUDA ordinal as the process sees it (0 inside a worker)
    std::string save_output_path;       // write the output storage here (the reference choice)
    std::string reference_output_path;  // compare the output with this storage
    Tolerance tolerance;
    TimingOptions timing;
    // Libraries of the choices likely to come next: the worker loads them in the background while
    // this one runs, so that dlopen is not paid between choices.
    std::vector<std::string> prefetch_libraries;
    // Triton binaries of the choices likely to come next: loaded while this one's timed runs drain.
    std::vector<TritonBinary> prefetch_kernels;
    // Warm-up only: set up the device (CUDA context, streams, the L2 flush buffer), make the
    // inputs and upload them, run nothing. Sent to every worker while the choices precompile.
    bool warmup_only = false;

    // Triton: a compiled kernel from a Triton cache launched through the driver (triton_launch.hpp);
    // Gemm: a cuBLAS call (cuda/cublas.hpp). Both use inputs, output, seed, tolerance and timing.
    TritonLaunch triton;
    cuda::GemmCall gemm;
    // Triton / Gemm: the op's extern choice, which the worker runs once per op on its own device
    // as the reference; each output is checked against it there (no reference file, no copy).
    std::optional<cuda::GemmCall> reference_gemm;

    // InductorModule: `python MODULE.py [-k]` with TORCHINDUCTOR_CACHE_DIR = cache_root.
    std::string module_path;
    std::string python;
    std::string cache_root;
    bool per_kernel = false;
    double module_timeout_s = 600;
};

struct TimingStats {
    double min = 0, p20 = 0, median = 0, p80 = 0, max = 0, mean = 0;
    int count = 0;
};
TimingStats summarize(std::vector<double> samples_ms);

// How one benchmark ended. JSON: the names, "ok", "error", ...; an unknown name reads as error.
enum class BenchStatus : std::uint8_t {
    ok,
    error,     // it did not run: no library or symbol, a bad request, the kernel reported an error
    mismatch,  // its output differs from the reference choice's beyond the tolerance
    timeout,   // no result in time: the worker was stopped
    crash,     // the worker died (a signal, an exit) while running it
};
NLOHMANN_JSON_SERIALIZE_ENUM(BenchStatus, {{BenchStatus::error, "error"},
                                           {BenchStatus::ok, "ok"},
                                           {BenchStatus::mismatch, "mismatch"},
                                           {BenchStatus::timeout, "timeout"},
                                           {BenchStatus::crash, "crash"}})
const char* bench_status_name(BenchStatus s);

struct BenchmarkResult {
    BenchStatus status = BenchStatus::ok;
    double ms = std::numeric_limits<double>::infinity();
    TimingStats stats;
    std::string reason;
    double kernel_seconds = 0;  // time spent inside the kernel's runs (warm-up and timed)
    double worker_seconds = 0;  // time from receiving the request to answering it
    double wall_seconds = 0;    // set by the caller: from sending the request to having the result
    double verify_seconds = 0;  // copying the output back and comparing it with the reference's
    nlohmann::json details = nlohmann::json::object();  // InductorModule timings, device facts
    int worker_pid = 0;
    std::string device;

    bool ok() const { return status == BenchStatus::ok; }
    static BenchmarkResult failure(BenchStatus status, std::string reason);
};

nlohmann::json to_json(const BenchmarkRequest& r);
Result<BenchmarkRequest> request_from_json(const nlohmann::json& j);
nlohmann::json to_json(const BenchmarkResult& r);
BenchmarkResult result_from_json(const nlohmann::json& j);
nlohmann::json to_json(const TimingStats& s);
nlohmann::json to_json(const TimingOptions& t);
// The fields `j` has replace those of `base` (a spec's "timing" overrides the defaults).
TimingOptions timing_options_from_json(const nlohmann::json& j, TimingOptions base = {});
TimingStats timing_stats_from_json(const nlohmann::json& j);

}  // namespace kiln::worker
