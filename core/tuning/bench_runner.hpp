#pragma once
// Where a session's choices are benchmarked: one kiln-worker per device (TuningProcessPool), or
// this process (--in-process, an Executor). Either starts and warms up (CUDA context, inputs on the
// device) in the background while the choices precompile.
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "codecache/library.hpp"
#include "tuning/in_process_watch.hpp"
#include "worker/devices.hpp"
#include "worker/executor.hpp"
#include "worker/tuning_pool.hpp"

namespace kiln::tuning {

inline double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

class BenchRunner {
public:
    // `warmup`: a request with warmup_only set, sent to every worker (or run here) at start.
    BenchRunner(std::vector<worker::Device> devices, bool in_process, std::string worker_path,
                worker::Timeouts timeouts, worker::BenchmarkRequest warmup);
    ~BenchRunner();
    BenchRunner(const BenchRunner&) = delete;
    BenchRunner& operator=(const BenchRunner&) = delete;

    void start();         // returns at once; the start-up runs in the background
    Status wait_ready();  // its outcome; then prepare_seconds() is known
    double prepare_seconds() const { return prepare_seconds_; }

    // In-process: a library loaded while precompiling, so its dlopen is not benchmark overhead.
    void preload(const std::filesystem::path& path, std::shared_ptr<codecache::Library> library);

    // Benchmarks `requests`; `on_result(k, result)` for each, one at a time (results carry the
    // wall time and the device).
    using Sink = std::function<void(std::size_t k, const worker::BenchmarkResult& result)>;
    void run(const std::vector<worker::BenchmarkRequest>& requests, const Sink& on_result);

    // In-process: how to save the results so far when a benchmark outlives the result timeout or a
    // kernel ends the process (in_process_watch.hpp); then the process exits 1.
    void on_abort(std::function<void(const std::string& why)> save) { save_on_abort_ = std::move(save); }

    std::vector<worker::WorkerInfo> workers() const;  // empty in-process
    void stop();

private:
    Status start_up();

    std::vector<worker::Device> devices_;
    worker::BenchmarkRequest warmup_;
    std::unique_ptr<worker::TuningProcessPool> pool_;  // null in-process
    worker::Executor local_;
    worker::Timeouts timeouts_;
    std::function<void(const std::string&)> save_on_abort_;
    std::unique_ptr<InProcessWatch> watch_;  // in-process, from the first run
    std::future<Status> ready_;
    double prepare_seconds_ = 0;
};

}  // namespace kiln::tuning
