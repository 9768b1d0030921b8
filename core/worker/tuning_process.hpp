#pragma once
// One kiln-worker process (autotune_process.py TuningProcess): started with only its device
// visible, warmed up with Ping/Pong, sent one request at a time. A result that does not come in
// time stops the worker (graceful stop, then SIGTERM, then SIGKILL, each with its own timeout); a
// worker that crashes (end of stream, exit, signal) is reaped and cleared; either way the next
// request starts a fresh one, and the request it was running scores +inf with the reason.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "util/result.hpp"
#include "worker/protocol.hpp"

namespace kiln::worker {

struct Timeouts {
    std::chrono::milliseconds startup{60'000};   // spawn until Pong
    std::chrono::milliseconds result{120'000};   // Inductor's max_autotune_subproc_result_timeout_seconds
    std::chrono::milliseconds graceful{3'000};   // ..._graceful_timeout_seconds
    std::chrono::milliseconds terminate{1'000};  // ..._terminate_timeout_seconds
};

struct WorkerConfig {
    std::string worker_path;
    std::optional<int> cuda_device;  // CUDA_VISIBLE_DEVICES=<id>; none: the CPU (variable removed)
    Timeouts timeouts;
    bool preload_cublas = false;  // kiln-worker --preload-cublas (worker_loop.hpp)
    // A directory descriptor the worker inherits (kiln-worker --root-fd): the cache root a command
    // opened, which Triton binaries are read beneath; owned by the caller, open while workers start.
    int cache_root_fd = -1;
};

// $KILN_WORKER, else kiln-worker beside the running executable, else ../libexec/kiln/kiln-worker.
std::string default_worker_path();

class TuningProcess {
public:
    explicit TuningProcess(WorkerConfig config);
    ~TuningProcess();
    TuningProcess(const TuningProcess&) = delete;
    TuningProcess& operator=(const TuningProcess&) = delete;

    // Spawns (if not running) and waits for Pong.
    Status start();
    bool valid() const { return pid_ > 0; }
    pid_t pid() const { return pid_; }
    const nlohmann::json& pong() const { return pong_; }
    int starts() const { return starts_; }

    // Starts the worker if needed, sends `req`, waits for the result. Never throws; failures of
    // the worker come back as a failed result ("timeout" or "crash") and the worker is cleared.
    BenchmarkResult benchmark(const BenchmarkRequest& req);
    // benchmark() in two halves, so that a caller can queue the next request in the worker's
    // channel while this one runs (the pool's pipelining). send(): false when the worker is gone
    // (then receive() reports the crash). receive(): the oldest unanswered request's result, its
    // timeout counted from now; after a failure the worker is cleared and requests sent after the
    // failed one are lost: send them again.
    bool send(const BenchmarkRequest& req);
    BenchmarkResult receive();

    // Graceful stop, then SIGTERM, then SIGKILL; reaps the process.
    void stop();

private:
    Result<nlohmann::json> exchange(const nlohmann::json& message, std::optional<std::chrono::milliseconds> timeout);
    std::string reap_after_eof();
    bool wait_exit(std::chrono::milliseconds timeout, int* status);
    void clear();

    WorkerConfig config_;
    pid_t pid_ = -1;
    int fd_ = -1;
    int starts_ = 0;
    nlohmann::json pong_;
};

}  // namespace kiln::worker
