#pragma once
// The body of kiln-worker: read a request, answer it, repeat (autotune_process.py workloop).
// Ping -> Pong with the process's device facts; Shutdown or end of stream -> exit; anything else
// is benchmarked by an Executor and answered with its result.
namespace kiln::worker {

int run_worker_loop(int fd);

}  // namespace kiln::worker
