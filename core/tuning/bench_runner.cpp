#include "tuning/bench_runner.hpp"

#include <mutex>

namespace kiln::tuning {

using Clock = std::chrono::steady_clock;

BenchRunner::BenchRunner(std::vector<worker::Device> devices, bool in_process, std::string worker_path,
                         worker::Timeouts timeouts, worker::BenchmarkRequest warmup)
    : devices_(std::move(devices)), warmup_(std::move(warmup)), timeouts_(timeouts) {
    if (!in_process)
        pool_ = std::make_unique<worker::TuningProcessPool>(
            worker::PoolOptions{devices_, std::move(worker_path), timeouts, warmup_});
}

BenchRunner::~BenchRunner() {
    if (ready_.valid()) ready_.wait();  // the start-up thread uses this object
    stop();
}

void BenchRunner::start() {
    ready_ = std::async(std::launch::async, [this] { return start_up(); });
}

Status BenchRunner::start_up() {
    auto t = Clock::now();
    Status st = ok_status();
    if (pool_) {
        st = pool_->start();
    } else {
        worker::BenchmarkResult r = local_.run(warmup_);
        if (!r.ok()) st = make_error(Errc::external, "warm-up failed: " + r.reason);
    }
    prepare_seconds_ = seconds_since(t);
    return st;
}

Status BenchRunner::wait_ready() { return ready_.get(); }

void BenchRunner::preload(const std::filesystem::path& path, std::shared_ptr<codecache::Library> library) {
    local_.preload(path.string(), std::move(library));
}

void BenchRunner::run(const std::vector<worker::BenchmarkRequest>& requests, const Sink& on_result) {
    if (pool_) {
        std::mutex m;  // results come from the dispatcher threads
        pool_->benchmark(requests, [&](std::size_t k, const worker::BenchmarkResult& r) {
            std::lock_guard lk(m);
            on_result(k, r);
        });
        return;
    }
    if (!watch_) watch_ = std::make_unique<InProcessWatch>(timeouts_.result, save_on_abort_);
    for (std::size_t k = 0; k < requests.size(); ++k) {
        auto t = Clock::now();
        watch_->arm(requests[k].choice);
        worker::BenchmarkResult r = local_.run(requests[k]);
        watch_->disarm();
        r.wall_seconds = seconds_since(t);
        if (r.device.empty() || devices_[0].cuda) r.device = devices_[0].label();
        on_result(k, r);
    }
}

std::vector<worker::WorkerInfo> BenchRunner::workers() const {
    return pool_ ? pool_->workers() : std::vector<worker::WorkerInfo>{};
}

void BenchRunner::stop() {
    if (pool_) pool_->stop();
}

}  // namespace kiln::tuning
