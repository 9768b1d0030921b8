#include "worker/tuning_pool.hpp"

#include <chrono>
#include <future>

namespace kiln::worker {

struct TuningProcessPool::Batch {
    std::mutex mutex;
    std::condition_variable done;
    std::vector<BenchmarkResult> results;
    std::size_t remaining = 0;
    Callback on_result;
};

struct TuningProcessPool::Slot {
    Device device;
    std::unique_ptr<TuningProcess> process;
    std::thread thread;
    std::promise<Status> started;
    mutable std::mutex info_mutex;  // guards the fields copied by workers()
    WorkerInfo info;
};

TuningProcessPool::TuningProcessPool(PoolOptions options) : options_(std::move(options)) {
    if (options_.worker_path.empty()) options_.worker_path = default_worker_path();
    if (options_.devices.empty()) options_.devices = default_devices();
}

TuningProcessPool::~TuningProcessPool() { stop(); }

static Status check_one_device(const Device& d, const nlohmann::json& pong) {
    if (d.is_cpu()) return ok_status();
    if (pong.contains("cuda_error"))
        return make_error(Errc::unavailable,
                          "worker for " + d.label() + " cannot use CUDA: " + pong["cuda_error"].get<std::string>());
    int n = pong.value("device_count", -1);
    if (n != 1)
        return make_error(Errc::external,
                          "worker for " + d.label() + " sees " + std::to_string(n) + " devices, expected exactly 1", {},
                          "the device id may not exist; check --devices against nvidia-smi");
    return ok_status();
}

Status TuningProcessPool::start() {
    if (!slots_.empty()) return ok_status();
    stopping_ = false;
    std::vector<std::future<Status>> started;
    for (const auto& d : options_.devices) {
        auto slot = std::make_unique<Slot>();
        slot->device = d;
        slot->info.device = d;
        slot->process = std::make_unique<TuningProcess>(WorkerConfig{options_.worker_path, d.cuda, options_.timeouts});
        started.push_back(slot->started.get_future());
        Slot* raw = slot.get();
        slots_.push_back(std::move(slot));
        raw->thread = std::thread([this, raw] { dispatch(*raw); });
    }
    Status first_error = ok_status();
    for (auto& f : started) {
        Status st = f.get();
        if (!st.ok() && first_error.ok()) first_error = st;
    }
    if (!first_error.ok()) stop();
    return first_error;
}

void TuningProcessPool::dispatch(Slot& slot) {
    // Start (and warm up) the worker on this thread: PR_SET_PDEATHSIG follows the creating thread.
    Status st = slot.process->start();
    if (st.ok()) st = check_one_device(slot.device, slot.process->pong());
    double warmup_seconds = 0;
    std::string warmup_error;
    if (st.ok() && options_.warmup) {
        BenchmarkRequest w = *options_.warmup;
        w.warmup_only = true;
        if (w.kind == RequestKind::cuda) w.device_ordinal = 0;
        auto t0 = std::chrono::steady_clock::now();
        BenchmarkResult r = slot.process->benchmark(w);
        warmup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!r.ok()) warmup_error = std::string(bench_status_name(r.status)) + ": " + r.reason;
    }
    {
        std::lock_guard lk(slot.info_mutex);
        slot.info.pid = slot.process->pid();
        slot.info.starts = slot.process->starts();
        slot.info.pong = slot.process->pong();
        slot.info.warmup_seconds = warmup_seconds;
        slot.info.warmup_error = warmup_error;
    }
    slot.started.set_value(st);
    if (!st.ok()) {
        slot.process->stop();
        return;
    }
    std::vector<std::string> prefetch;
    for (;;) {
        Job job;
        {
            std::unique_lock lk(mutex_);
            cv_.wait(lk, [&] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) break;  // stopping and nothing left
            job = std::move(queue_.front());
            queue_.pop_front();
            // What this worker may run next: the next few queued choices (as many as workers).
            for (std::size_t k = 0; k < queue_.size() && k < slots_.size(); ++k)
                if (!queue_[k].request->library_path.empty()) prefetch.push_back(queue_[k].request->library_path);
        }
        BenchmarkRequest req = *job.request;
        req.prefetch_libraries = std::move(prefetch);
        prefetch.clear();
        if (req.kind == RequestKind::cuda) req.device_ordinal = 0;  // the worker sees only its device
        auto t0 = std::chrono::steady_clock::now();
        BenchmarkResult r = slot.process->benchmark(req);
        r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        r.device = slot.device.label();
        {
            std::lock_guard lk(slot.info_mutex);
            slot.info.pid = slot.process->pid();
            slot.info.starts = slot.process->starts();
            if (slot.process->valid()) slot.info.pong = slot.process->pong();
        }
        if (job.batch->on_result) job.batch->on_result(job.index, r);
        std::lock_guard lk(job.batch->mutex);
        job.batch->results[job.index] = std::move(r);
        if (--job.batch->remaining == 0) job.batch->done.notify_all();
    }
    slot.process->stop();
}

std::vector<BenchmarkResult> TuningProcessPool::benchmark(const std::vector<BenchmarkRequest>& requests,
                                                          const Callback& on_result) {
    auto batch = std::make_shared<Batch>();
    batch->results.resize(requests.size());
    batch->remaining = requests.size();
    batch->on_result = on_result;
    if (requests.empty()) return {};
    if (slots_.empty()) {
        for (auto& r : batch->results) r = BenchmarkResult::failure(BenchStatus::error, "tuning pool is not started");
        return batch->results;
    }
    {
        std::lock_guard lk(mutex_);
        for (std::size_t i = 0; i < requests.size(); ++i) queue_.push_back({&requests[i], i, batch});
    }
    cv_.notify_all();
    std::unique_lock lk(batch->mutex);
    batch->done.wait(lk, [&] { return batch->remaining == 0; });
    return batch->results;
}

void TuningProcessPool::stop() {
    {
        std::lock_guard lk(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    for (auto& s : slots_)
        if (s->thread.joinable()) s->thread.join();
    slots_.clear();
}

std::vector<WorkerInfo> TuningProcessPool::workers() const {
    std::vector<WorkerInfo> out;
    for (const auto& s : slots_) {
        std::lock_guard lk(s->info_mutex);
        out.push_back(s->info);
    }
    return out;
}

}  // namespace kiln::worker
