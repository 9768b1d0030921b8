// kiln-worker: one per device, started by the tuning pool with only its device visible
// (CUDA_VISIBLE_DEVICES). Speaks length-prefixed CBOR on the socket given by --fd; stdout is sent
// to stderr so that a kernel's prints never corrupt the channel.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "worker/worker_loop.hpp"

int main(int argc, char** argv) {
    int fd = -1;
    kiln::worker::WorkerLoopOptions options;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--fd") == 0 && i + 1 < argc) fd = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--root-fd") == 0 && i + 1 < argc) options.cache_root_fd = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--preload-cublas") == 0) {
            // KILN_WORKER_CUBLAS_PRELOAD (off, early, after-init) picks the order for benchmarks.
            // after-init by default: a load beside cuInit slowed the driver's start (two H200
            // workers ready at 0.66 s, 0.47 s with the load after it; bench/RESULTS.md).
            const char* how = std::getenv("KILN_WORKER_CUBLAS_PRELOAD");
            std::string h = how ? how : "after-init";
            options.preload_cublas = h == "off"     ? kiln::worker::CublasPreload::off
                                     : h == "early" ? kiln::worker::CublasPreload::early
                                                    : kiln::worker::CublasPreload::after_init;
        } else if (std::strcmp(argv[i], "--help") == 0) {
            std::printf(
                "usage: kiln-worker --fd N [--root-fd N] [--preload-cublas]\n"
                "Benchmark worker of kiln's tuning pool; not meant to be run by hand.\n");
            return 0;
        }
    }
    if (fd < 0) {
        std::fprintf(stderr, "kiln-worker: missing --fd N (kiln-worker is started by kiln-cli's tuning pool)\n");
        return 2;
    }
    std::fflush(stdout);
    ::dup2(2, 1);
    try {
        return kiln::worker::run_worker_loop(fd, options);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kiln-worker: internal error: %s\n", e.what());
        return 1;
    }
}
