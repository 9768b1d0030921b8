#include "worker/tuning_pool.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
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
    std::promise<Status> up;         // set at the Pong, before the warm-up
    std::promise<void> gate;         // opened when the next worker may start (PoolOptions::start)
    std::shared_future<void> after;  // the previous worker's gate; none: start at once
    mutable std::mutex info_mutex;   // guards the fields copied by workers()
    WorkerInfo info;
    std::atomic<bool> finished{false};  // the dispatcher thread has reaped its worker and returns
    std::string group;                  // of the request it took last (guarded by the pool's mutex_)
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

void TuningProcessPool::spawn() {
    stopping_ = false;
    none_up_.clear();
    starting_ = options_.devices.size();
    running_ = 0;
    started_.clear();
    up_.clear();
    std::shared_future<void> previous_gate;
    for (const auto& d : options_.devices) {
        auto slot = std::make_unique<Slot>();
        slot->device = d;
        slot->info.device = d;
        slot->process = std::make_unique<TuningProcess>(WorkerConfig{options_.worker_path, d.cuda, options_.timeouts,
                                                                     options_.preload_cublas && !d.is_cpu(),
                                                                     options_.cache_root_fd});
        started_.push_back(slot->started.get_future());
        up_.push_back(slot->up.get_future().share());
        if (options_.start != PoolOptions::Start::together) slot->after = previous_gate;
        previous_gate = slot->gate.get_future().share();
        Slot* raw = slot.get();
        {
            std::lock_guard lk(mutex_);  // the running dispatchers read slots_ (next_for)
            slots_.push_back(std::move(slot));
        }
        raw->thread = std::thread([this, raw] { dispatch(*raw); });
    }
}

Status TuningProcessPool::start() {
    if (!slots_.empty()) return ok_status();
    spawn();
    Status first_error = started();
    if (!first_error.ok()) stop();
    return first_error;
}

void TuningProcessPool::start_async() {
    if (slots_.empty()) spawn();
}

Status TuningProcessPool::up() {
    Status first_error = ok_status();
    for (auto& f : up_) {
        Status st = f.get();
        if (!st.ok() && first_error.ok()) first_error = st;
    }
    return first_error;
}

Status TuningProcessPool::up(std::size_t i) {
    if (i >= up_.size()) return make_error(Errc::invalid_argument, "no worker " + std::to_string(i));
    return up_[i].get();
}

Status TuningProcessPool::started() {
    Status first_error = ok_status();
    for (auto& f : started_) {
        if (!f.valid()) continue;  // asked before
        Status st = f.get();
        if (!st.ok() && first_error.ok()) first_error = st;
    }
    return first_error;
}

void TuningProcessPool::complete(const Job& job, BenchmarkResult r) {
    if (job.batch->on_result) job.batch->on_result(job.index, r);
    std::lock_guard lk(job.batch->mutex);
    job.batch->results[job.index] = std::move(r);
    if (--job.batch->remaining == 0) job.batch->done.notify_all();
}

void TuningProcessPool::fail_queued(std::unique_lock<std::mutex>& lk, const std::string& why) {
    std::deque<Job> jobs;
    jobs.swap(queue_);
    lk.unlock();
    for (const auto& j : jobs) complete(j, BenchmarkResult::failure(BenchStatus::crash, "no worker started: " + why));
    lk.lock();
}

std::size_t TuningProcessPool::next_for(const Slot& slot) const {
    for (std::size_t k = 0; k < queue_.size(); ++k)  // more of its own group
        if (queue_[k].request->group == slot.group) return k;
    auto taken = [&](const std::string& g) {
        return !g.empty() && std::any_of(slots_.begin(), slots_.end(),
                                         [&](const auto& s) { return s.get() != &slot && s->group == g; });
    };
    for (std::size_t k = 0; k < queue_.size(); ++k)  // a group no other worker is on
        if (!taken(queue_[k].request->group)) return k;
    return 0;  // every group is being worked on: help the first
}

void TuningProcessPool::dispatch(Slot& slot) {
    // Start (and warm up) the worker on this thread: PR_SET_PDEATHSIG follows the creating thread.
    if (slot.after.valid()) slot.after.wait();
    auto spawned = std::chrono::steady_clock::now();
    Status st = slot.process->start();
    auto up = std::chrono::steady_clock::now();
    if (st.ok()) st = check_one_device(slot.device, slot.process->pong());
    if (st.ok() && options_.accept) st = options_.accept(slot.process->pong());
    auto note_process = [&slot] {  // with info_mutex held
        slot.info.pid = slot.process->pid();
        slot.info.starts = slot.process->starts();
        slot.info.pong = slot.process->pong();
    };
    {
        std::lock_guard lk(slot.info_mutex);
        note_process();
        slot.info.spawned = spawned;
        slot.info.up = up;
    }
    slot.up.set_value(st);
    // A worker that failed opens the gate too: the next one starts in its stead.
    if (!st.ok() || options_.start == PoolOptions::Start::after_previous_pong) slot.gate.set_value();
    double warmup_seconds = 0;
    std::string warmup_error;
    nlohmann::json warmup_details;
    if (st.ok() && options_.warmup) {
        BenchmarkRequest w = *options_.warmup;
        w.warmup_only = true;
        if (w.kind == RequestKind::cuda) w.device_ordinal = 0;
        auto t0 = std::chrono::steady_clock::now();
        BenchmarkResult r = slot.process->benchmark(w);
        warmup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!r.ok()) warmup_error = std::string(bench_status_name(r.status)) + ": " + r.reason;
        warmup_details = r.details;
    }
    {
        std::lock_guard lk(slot.info_mutex);
        note_process();  // again: a worker that crashed in its warm-up was started anew
        slot.info.warmup_seconds = warmup_seconds;
        slot.info.warmup_error = warmup_error;
        slot.info.warmup_details = std::move(warmup_details);
        slot.info.ready = std::chrono::steady_clock::now();
    }
    slot.started.set_value(st);
    if (st.ok() && options_.start != PoolOptions::Start::after_previous_pong) slot.gate.set_value();
    {
        std::unique_lock lk(mutex_);
        --starting_;
        if (st.ok()) ++running_;
        else if (running_ == 0 && starting_ == 0) {
            none_up_ = st.error().str();
            fail_queued(lk, none_up_);
        }
    }
    if (!st.ok()) {
        slot.process->stop();
        slot.finished = true;
        return;
    }
    // Up to `pipeline` requests sit in the worker's channel: the next one is there when the worker
    // finishes a choice, so the exchange's latency never sits between two choices on the device.
    struct InFlight {
        Job job;
        BenchmarkRequest req;
        bool sent = false;
        std::chrono::steady_clock::time_point sent_at;
    };
    std::deque<InFlight> flight;
    const std::size_t depth = std::max<std::size_t>(options_.pipeline, 1);
    auto last_answer = std::chrono::steady_clock::now();
    for (;;) {
        {
            std::unique_lock lk(mutex_);
            if (flight.empty()) cv_.wait(lk, [&] { return stopping_ || !queue_.empty(); });
            while (flight.size() < depth && !queue_.empty()) {
                auto at = queue_.begin() + static_cast<std::ptrdiff_t>(next_for(slot));
                InFlight f{std::move(*at), {}, false, {}};
                at = queue_.erase(at);
                f.req = *f.job.request;
                slot.group = f.req.group;
                // What this worker may run next: the next few queued choices of its group (as many as workers).
                std::size_t hints = 0;
                for (auto it = at; it != queue_.end() && hints < slots_.size(); ++it) {
                    const BenchmarkRequest& next = *it->request;
                    if (next.group != slot.group) continue;
                    ++hints;
                    if (!next.library_path.empty()) f.req.prefetch_libraries.push_back(next.library_path);
                    else if (next.kind == RequestKind::triton) f.req.prefetch_kernels.push_back(next.triton.binary);
                }
                flight.push_back(std::move(f));
            }
        }
        if (flight.empty()) break;                                // stopping and nothing left
        if (!slot.process->valid()) (void)slot.process->start();  // failing: receive() reports it
        for (auto& f : flight) {
            if (f.sent) continue;
            if (f.req.kind == RequestKind::cuda) f.req.device_ordinal = 0;  // the worker sees only its device
            f.sent = slot.process->send(f.req);
            f.sent_at = std::chrono::steady_clock::now();
            if (!f.sent) break;
        }
        InFlight done = std::move(flight.front());
        flight.pop_front();
        BenchmarkResult r = done.sent ? slot.process->receive()
                                      : (slot.process->valid() ? slot.process->benchmark(done.req)
                                                               : BenchmarkResult::failure(BenchStatus::crash,
                                                                                          "crash: the worker did not "
                                                                                          "start"));
        auto now = std::chrono::steady_clock::now();
        // This choice's own time: from when the worker could start it (sent, and the one before answered).
        r.wall_seconds = std::chrono::duration<double>(now - std::max(done.sent_at, last_answer)).count();
        last_answer = now;
        if (!slot.process->valid())
            for (auto& f : flight) f.sent = false;  // lost with the worker: sent again to the next one
        r.device = slot.device.label();
        {
            std::lock_guard lk(slot.info_mutex);
            slot.info.pid = slot.process->pid();
            slot.info.starts = slot.process->starts();
            if (slot.process->valid()) slot.info.pong = slot.process->pong();
        }
        complete(done.job, std::move(r));
    }
    slot.process->stop();
    slot.finished = true;
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
        std::unique_lock lk(mutex_);
        for (std::size_t i = 0; i < requests.size(); ++i) queue_.push_back({&requests[i], i, batch});
        if (running_ == 0 && starting_ == 0) fail_queued(lk, none_up_.empty() ? "every worker stopped" : none_up_);
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

void TuningProcessPool::release(std::unique_ptr<TuningProcessPool> pool) {
    // Pools whose workers are exiting. Left to the process's exit on purpose (never destroyed):
    // destroying one joins its threads, which is the wait this function exists to avoid.
    static auto* exiting = new std::vector<std::unique_ptr<TuningProcessPool>>();
    static auto* exiting_mutex = new std::mutex();
    if (pool) {
        {
            std::lock_guard lk(pool->mutex_);
            pool->stopping_ = true;
        }
        pool->cv_.notify_all();
    }
    std::lock_guard lk(*exiting_mutex);
    std::erase_if(*exiting, [](const std::unique_ptr<TuningProcessPool>& p) {
        return std::all_of(p->slots_.begin(), p->slots_.end(), [](const auto& s) { return s->finished.load(); });
    });  // their threads are done: the destructor's joins return at once
    if (pool) exiting->push_back(std::move(pool));
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
