#pragma once
// The body of kiln-worker: read a request, answer it, repeat (autotune_process.py workloop).
// Ping -> Pong with the process's device facts; Shutdown or end of stream -> exit; anything else
// is benchmarked by an Executor and answered with its result.
namespace kiln::worker {

// When kiln-worker loads cuBLAS on a thread of its own (--preload-cublas), so that the library's
// loading (half a second: libcublasLt is large) overlaps the CUDA context's creation instead of
// following it. dlopen holds the loader's lock throughout, and dlopen/dlsym in other threads wait
// for it: `early` opens libcuda first, then starts the load at once (cuInit runs beside it);
// `after_init` starts it once the Ping is answered (cuInit done; the context's creation and the
// warm-up beside it). A load that fails is not fatal: the first request that needs cuBLAS says why.
enum class CublasPreload { off, early, after_init };

struct WorkerLoopOptions {
    CublasPreload preload_cublas = CublasPreload::off;
    int cache_root_fd = -1;  // --root-fd: the directory Triton binaries are read beneath (Executor::set_cache_root)
};

// Returns the exit status for the errors it cannot answer (a broken channel); on Shutdown or end
// of stream it ends the process itself with status 0 (_exit: every request has been answered and
// nothing is left to save, so the driver's teardown of the context runs in the kernel only).
int run_worker_loop(int fd, const WorkerLoopOptions& options = {});

}  // namespace kiln::worker
