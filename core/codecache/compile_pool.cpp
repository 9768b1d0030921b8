#include "codecache/compile_pool.hpp"

#include "util/cpus.hpp"

namespace kiln::codecache {
namespace {

template <class T>
std::shared_future<T> ready(T value) {
    std::promise<T> p;
    p.set_value(std::move(value));
    return p.get_future().share();
}

}  // namespace

CompilePool::CompilePool(CodeCache& cache, unsigned workers) : cache_(cache) {
    if (workers == 0) workers = usable_cpus();
    threads_.reserve(workers);
    for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { run_worker(); });
}

CompilePool::~CompilePool() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
}

void CompilePool::run_worker() {
    for (;;) {
        std::function<void()> job;
        {
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;  // stopping, and all queued work is done
            job = std::move(queue_.front());
            queue_.pop_front();
        }
        job();
    }
}

std::shared_future<Result<CompileOutcome>> CompilePool::compile_async(CompileRequest req) {
    auto key = cache_.key_for(req);
    if (!key.ok()) return ready<Result<CompileOutcome>>(std::move(key.error()));
    std::string slot = key.value() + (req.force ? "!" : "");
    std::lock_guard lock(mutex_);
    // A request for a key already in flight joins it instead of compiling again.
    if (auto it = compiles_.find(slot); it != compiles_.end()) return it->second;
    auto task = std::make_shared<std::packaged_task<Result<CompileOutcome>()>>([this, req = std::move(req), slot] {
        auto r = cache_.compile(req);
        std::lock_guard done(mutex_);
        compiles_.erase(slot);
        return r;
    });
    auto fut = task->get_future().share();
    compiles_.emplace(slot, fut);
    queue_.push_back([task] { (*task)(); });
    cv_.notify_one();
    return fut;
}

std::shared_future<Result<std::shared_ptr<Library>>> CompilePool::load_async(CompileRequest req) {
    using LoadResult = Result<std::shared_ptr<Library>>;
    auto key = cache_.key_for(req);
    if (!key.ok()) return ready<LoadResult>(std::move(key.error()));
    std::string slot = key.value() + (req.force ? "!" : "");
    std::lock_guard lock(mutex_);
    if (auto it = loads_.find(slot); it != loads_.end()) return it->second;
    auto task = std::make_shared<std::packaged_task<LoadResult()>>([this, req = std::move(req), slot] {
        auto r = cache_.compile_and_load(req);
        std::lock_guard done(mutex_);
        loads_.erase(slot);
        return r;
    });
    auto fut = task->get_future().share();
    loads_.emplace(slot, fut);
    queue_.push_back([task] { (*task)(); });
    cv_.notify_one();
    return fut;
}

}  // namespace kiln::codecache
