#pragma once
// A pool of compile workers (Inductor's compile_tasks / AsyncCompile): requests return futures,
// many kernels compile in parallel, and concurrent requests for one key share one compile. Across
// processes the per-key file lock in CodeCache does the same.
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "codecache/code_cache.hpp"

namespace kiln::codecache {

class CompilePool {
public:
    // workers == 0: the number of cores this process may use (its CPU affinity).
    explicit CompilePool(CodeCache& cache, unsigned workers = 0);
    ~CompilePool();  // finishes queued work, then joins
    CompilePool(const CompilePool&) = delete;
    CompilePool& operator=(const CompilePool&) = delete;

    unsigned workers() const { return static_cast<unsigned>(threads_.size()); }

    std::shared_future<Result<CompileOutcome>> compile_async(CompileRequest req);
    // Compile (if needed) and dlopen; a corrupt artifact is rebuilt once.
    std::shared_future<Result<std::shared_ptr<Library>>> load_async(CompileRequest req);

private:
    void run_worker();

    CodeCache& cache_;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> queue_;
    bool stopping_ = false;
    // In-flight and finished requests by key (+ force flag), so one key compiles once per pool.
    std::unordered_map<std::string, std::shared_future<Result<CompileOutcome>>> compiles_;
    std::unordered_map<std::string, std::shared_future<Result<std::shared_ptr<Library>>>> loads_;
    std::vector<std::thread> threads_;
};

}  // namespace kiln::codecache
