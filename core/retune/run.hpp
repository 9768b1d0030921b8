#pragma once
// `kiln-cli retune ROOT`: re-tunes a cache's autotuned ops on this machine's GPUs. Every runnable
// choice of the inventory becomes a benchmark request (the inputs key's tensors, seeded random;
// a Triton choice's cubin launch or an extern choice's cuBLAS call), run by one kiln-worker per
// GPU through worker::TuningProcessPool, timed as torch's benchmarker times (CudaBench). Per op the extern choice
// runs first and saves its output; every other choice's output is compared with it at torch's
// tolerance for the dtype. A fault (illegal address, hang, wrong values) costs that choice only:
// its measurement says why, the worker is restarted, the other choices are still measured.
// Measurements go to one session log per op (tuning::SessionLog, like `autotune`'s).
#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "inductor/opened_root.hpp"
#include "retune/retune_report.hpp"
#include "util/result.hpp"
#include "worker/protocol.hpp"
#include "worker/tensor.hpp"

namespace kiln::retune {

struct RunOptions {
    // "all" or "0,1"; "cpu" only with `rewrite` (tests): the cache's kernels run on a GPU alone.
    std::string devices = "all";
    bool each_device = false;  // every choice on every device (to compare GPUs); else spread over them
    std::string op_filter;
    double timeout_s = 30;  // per choice: a hang is stopped after this
    // By default the number torch's own benchmarker returns (what it writes and compares), so that
    // Kiln's times stand beside torch's AUTOTUNE tables and timing cache as equals.
    worker::TimingOptions timing{.statistic = worker::Statistic::torch_min};
    std::uint64_t seed = 1;
    bool session_logs = true;
    std::string worker_path;  // empty: worker::default_worker_path()
    std::atomic<bool>* cancel = nullptr;
    // Called (from worker threads, serialized) after each measurement.
    std::function<void(const RetuneOp&, const RetuneChoice&, const Measurement&)> on_measured;
    // Tests: replaces each request before it is sent (the worker's fault paths on the CPU).
    std::function<void(const RetuneChoice&, worker::BenchmarkRequest&)> rewrite;
    std::optional<int> arch;  // override the devices' arch for the inventory (tests on the CPU)
    // false: once every choice is answered the workers are told to exit and not waited for
    // (TuningProcessPool::release), so that a command prints its report while they exit.
    bool wait_for_workers = true;
    // Keep only the ops this returns true for (`--shard I/N`: a fleet host's slice), before measuring.
    std::function<bool(const RetuneOp&)> keep_op;
};

// torch.testing.assert_close's default tolerance for the output dtype, with atol raised to the
// rounding error of a K-term float32 accumulation (K * 2^-24 * 2, two algorithms' errors adding up)
// and, with TF32 allowed, TF32's (10-bit mantissa) rounding of the inputs. `bias`: the op adds a
// bias, and Inductor's template rounds the product to the output dtype before its epilogue adds it
// while cuBLAS rounds once (seen on an H100: bf16 addmm, 0.3 % of elements 10 ulps apart near 0);
// atol then also covers half an ulp of the product (the rtol covers the result's own rounding), bounded by 6 sigma of a K-term sum of the inputs'
// values (uniform magnitudes in [0.1, 1]: E[x^2] = 0.37, sigma = 0.37 sqrt(K)).
worker::Tolerance tolerance_for(worker::DType dtype, std::int64_t K, bool tf32, bool bias = false);

// The request that measures `c` of `op` (without reference paths or device).
Result<worker::BenchmarkRequest> request_for(const RetuneOp& op, const RetuneChoice& c, const RunOptions& o);

// Status names of the JSON contract from a worker result: ok, failed, wrong, timeout, crashed.
const char* measured_status(worker::BenchStatus s);

// Why this machine cannot re-tune, the same words for the CLI and the GUI (which shows kiln-cli's error):
// Errc::unavailable, `why` (the driver's own words) and, as the hint, how to re-tune from a machine
// without a GPU: `--list` here, `retune --json` on a GPU machine, `handback --from` here.
Error no_gpu_error(const std::string& why);

// Why `report` holds no measurement, in the same words for both front ends (nullopt when it holds
// one): an inventory (`retune --list`: no GPU ran it; the hint is no_gpu_error's workflow), no op
// (none autotuned, or none matched --op), no choice Kiln can run (the first reason), or a run that
// ended before its first measurement.
std::optional<Error> nothing_measured(const RetuneReport& report);

// Where run_retune writes op `index`'s session log: <root>/kiln/autotune/retune-<op>-<index>-<stamp>-<pid>.jsonl,
// <op> as util/path_component's file_name_part makes it. The op key comes from the timing cache: data,
// never part of a path ("x/../../outside/pwn" once put the log outside the cache, issue 42 #4); the
// whole key is inside the log.
std::filesystem::path retune_session_log_path(const std::filesystem::path& root, const std::string& op,
                                              std::size_t index, const std::string& stamp, long pid);

// Nothing is written when nothing is measured: no GPU, `--devices cpu` (refused: Errc::unsupported),
// or no worker up leave the cache as it was; an op's session log is made at its first measurement.
// The cache is read beneath the opened root (the inventory through its descriptor; each worker
// inherits the descriptor, kiln-worker --root-fd, and reads the Triton binaries beneath it), which
// must stay open until the workers have answered; the session logs are written beneath it too.
Result<RetuneReport> run_retune(const inductor::OpenedRoot& root, const RunOptions& options);

}  // namespace kiln::retune
