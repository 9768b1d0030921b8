#include "worker/worker_loop.hpp"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <thread>

#include "cuda/cublas.hpp"
#include "cuda/driver.hpp"
#include "worker/channel.hpp"
#include "worker/executor.hpp"

namespace kiln::worker {

namespace {

// The tuner asked this worker to go, or went itself: every request it sent has been answered.
// Skipping the destructors (buffers freed one by one, cuBLAS's handle, the context's release)
// saves a tenth of a second per worker; the kernel frees the device memory with the process.
[[noreturn]] void leave(const Executor& executor, int status) {
    std::fflush(nullptr);
    if (double ms = executor.exit_delay_ms(); ms > 0)  // the tests' stand-in for a slow teardown
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
    ::_exit(status);
}

}  // namespace

int run_worker_loop(int fd, const WorkerLoopOptions& options) {
    std::signal(SIGPIPE, SIG_IGN);  // a vanished tuner shows up as a write error, not a signal
    std::jthread cublas_loader;
    auto load_cublas = [&] {
        if (!cublas_loader.joinable()) cublas_loader = std::jthread([] { (void)cuda::Cublas::load(); });
    };
    if (options.preload_cublas == CublasPreload::early) {
        cuda::open_driver();  // before the load takes the loader's lock
        load_cublas();
    }
    Executor executor;
    executor.set_cache_root(options.cache_root_fd);
    for (;;) {
        auto msg = read_message(fd);
        if (!msg.ok()) {
            if (msg.error().code == Errc::cancelled) leave(executor, 0);  // the tuner closed the channel
            std::fprintf(stderr, "kiln-worker: %s\n", msg.error().str().c_str());
            return 1;
        }
        nlohmann::json reply;
        auto req = request_from_json(*msg);
        if (!req.ok()) {
            reply = to_json(BenchmarkResult::failure(BenchStatus::error, req.error().str()));
        } else if (req->kind == RequestKind::shutdown) {
            leave(executor, 0);
        } else if (req->kind == RequestKind::ping) {
            reply = {{"pong", Executor::describe_process()}};
        } else {
            try {
                reply = to_json(executor.run(*req));
            } catch (const std::exception& e) {
                reply = to_json(
                    BenchmarkResult::failure(BenchStatus::error, std::string("exception in worker: ") + e.what()));
            }
        }
        if (!write_message(fd, reply).ok()) return 1;
        if (options.preload_cublas == CublasPreload::after_init && reply.contains("pong")) load_cublas();
        // A sticky CUDA error (an illegal address) leaves this process's context unusable: exit, so
        // that the tuner starts a fresh worker for the next choice.
        if (reply.contains("details") && reply["details"].value("context_lost", false)) return 3;
    }
}

}  // namespace kiln::worker
