#pragma once
// Workers for every device (autotune_process.py TuningProcessPool): one kiln-worker per device,
// each driven by its own dispatcher thread that takes the next request from a shared queue, so a
// request goes to whichever worker is free. The worker is started by its dispatcher thread (its
// PR_SET_PDEATHSIG is tied to that thread) and restarted there after a crash or a timeout.
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "worker/devices.hpp"
#include "worker/tuning_process.hpp"

namespace kiln::worker {

struct PoolOptions {
    std::vector<Device> devices;
    std::string worker_path;  // empty: default_worker_path()
    Timeouts timeouts;
    // Sent to every worker right after its Pong (a request with warmup_only set): each device sets
    // itself up in parallel, before the first choice, instead of on the first choice's clock.
    std::optional<BenchmarkRequest> warmup;
    // Requests queued in each worker's channel at once (1: one at a time). Two keep the device
    // busy while a result travels back and the next request travels out.
    std::size_t pipeline = 2;
    // Workers load cuBLAS on a thread from their first instant (the extern choices of a re-tune).
    bool preload_cublas = false;
    // The cache root the workers read Triton binaries beneath (WorkerConfig::cache_root_fd); -1: none.
    int cache_root_fd = -1;
    // When each worker starts. The driver attaches GPUs one process at a time: four H100 workers
    // started together were all ready only after 1.1-1.7 s, where one alone is ready after 0.3-0.5 s.
    // Starting each when the one before it is up (its Pong) or ready (warm-up done) lets the first
    // take requests that much sooner; the shared queue gives the later ones what is left.
    enum class Start { together, after_previous_pong, after_previous_ready };
    Start start = Start::together;
    // Checked at each worker's Pong (after the one-device check): a worker it refuses is stopped
    // and takes no requests, and started() reports why. Called on the workers' threads.
    std::function<Status(const nlohmann::json& pong)> accept;
};

struct WorkerInfo {
    Device device;
    pid_t pid = -1;
    int starts = 0;
    nlohmann::json pong;
    double warmup_seconds = 0;
    std::string warmup_error;       // a failed warm-up is not fatal: the choices report their own errors
    nlohmann::json warmup_details;  // the warm-up's answer: what the device's set-up cost (phases_ms)
    // When the first start began (spawn), its Pong came, and its warm-up ended (ready for choices).
    std::chrono::steady_clock::time_point spawned, up, ready;
};

class TuningProcessPool {
public:
    explicit TuningProcessPool(PoolOptions options);
    ~TuningProcessPool();
    TuningProcessPool(const TuningProcessPool&) = delete;
    TuningProcessPool& operator=(const TuningProcessPool&) = delete;

    // Starts every worker and waits for each one's Pong. A GPU worker must see exactly one device.
    Status start();
    // Starts every worker without waiting: each takes requests as soon as it is up, so a caller
    // can read its inputs meanwhile. Requests fail only when no worker came up. started() waits
    // for every start and gives the first failure (those workers take no requests).
    void start_async();
    Status started();
    // Waits for worker i's Pong only: with staggered starts, the first device's facts come before
    // the other workers have started.
    Status up(std::size_t i);
    // Waits for every worker's Pong only (not its warm-up): the device facts in workers()' `pong`
    // are there once it returns ok, so a caller need not initialise CUDA itself.
    Status up();

    using Callback = std::function<void(std::size_t index, const BenchmarkResult& result)>;
    // Benchmarks every request; results in request order. `on_result` runs on a dispatcher thread.
    std::vector<BenchmarkResult> benchmark(const std::vector<BenchmarkRequest>& requests,
                                           const Callback& on_result = {});

    // Waits for every queued request, tells every worker to exit and reaps them.
    void stop();
    // Tells `pool`'s workers to exit once their requests are answered and returns at once: each
    // dispatcher thread reaps its own worker (graceful, then SIGTERM, then SIGKILL, as stop()),
    // and the pool is freed by a later call once they are done. A process that exits first leaves
    // the exiting workers to the kernel (PR_SET_PDEATHSIG), so a tool prints its results without
    // waiting for the drivers' teardown in the workers.
    static void release(std::unique_ptr<TuningProcessPool> pool);
    std::vector<WorkerInfo> workers() const;
    std::size_t size() const { return options_.devices.size(); }

private:
    struct Batch;
    struct Job {
        const BenchmarkRequest* request;
        std::size_t index;
        std::shared_ptr<Batch> batch;
    };
    struct Slot;
    void dispatch(Slot& slot);
    // Which queued job `slot` takes next (BenchmarkRequest::group). Called with mutex_ held.
    std::size_t next_for(const Slot& slot) const;
    void spawn();
    // Fails every queued job with `why` (no worker is up). Called with mutex_ held; completes the
    // jobs after releasing it.
    void fail_queued(std::unique_lock<std::mutex>& lk, const std::string& why);
    static void complete(const Job& job, BenchmarkResult r);

    PoolOptions options_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<Job> queue_;
    bool stopping_ = false;
    std::vector<std::unique_ptr<Slot>> slots_;
    std::vector<std::future<Status>> started_;
    std::vector<std::shared_future<Status>> up_;
    std::size_t starting_ = 0, running_ = 0;  // workers still starting / up
    std::string none_up_;                     // why no worker is up, once all starts failed
};

}  // namespace kiln::worker
