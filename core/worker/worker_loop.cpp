#include "worker/worker_loop.hpp"

#include <csignal>
#include <cstdio>
#include <exception>

#include "worker/channel.hpp"
#include "worker/executor.hpp"

namespace kiln::worker {

int run_worker_loop(int fd) {
    std::signal(SIGPIPE, SIG_IGN);  // a vanished tuner shows up as a write error, not a signal
    Executor executor;
    for (;;) {
        auto msg = read_message(fd);
        if (!msg.ok()) {
            if (msg.error().code == Errc::cancelled) return 0;  // the tuner closed the channel
            std::fprintf(stderr, "kiln-worker: %s\n", msg.error().str().c_str());
            return 1;
        }
        nlohmann::json reply;
        auto req = request_from_json(*msg);
        if (!req.ok()) {
            reply = to_json(BenchmarkResult::failure(BenchStatus::error, req.error().str()));
        } else if (req->kind == RequestKind::shutdown) {
            return 0;
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
        // A sticky CUDA error (an illegal address) leaves this process's context unusable: exit, so
        // that the tuner starts a fresh worker for the next choice.
        if (reply.contains("details") && reply["details"].value("context_lost", false)) return 3;
    }
}

}  // namespace kiln::worker
