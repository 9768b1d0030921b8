#pragma once
// Runs one benchmark request where it is called: inside kiln-worker (the default) or in the
// tuner's own process (--in-process). Keeps what is worth reusing between choices of one op:
// input buffers (same metadata and seed), loaded libraries, CUDA streams, events and the L2 flush
// buffer. Test requests (fixed value, error, segfault, abort, hang) exist for the pool's tests.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "cuda/driver.hpp"
#include "worker/protocol.hpp"

namespace kiln::codecache {
class Library;
}
namespace kiln::cuda {
class Cublas;
}

namespace kiln::worker {

class CudaBench;

class Executor {
public:
    Executor();
    ~Executor();
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    BenchmarkResult run(const BenchmarkRequest& req);

    // The cache root (a directory descriptor the worker inherited, kiln-worker --root-fd) that Triton
    // requests' binaries are read beneath; -1: none (a Triton request then fails saying so).
    void set_cache_root(int fd) { cache_root_fd_ = fd; }

    // A library loaded ahead (in-process tuning loads while precompiling, as Inductor does), so
    // that loading is not counted as benchmark overhead.
    void preload(const std::string& path, std::shared_ptr<codecache::Library> library);

    // Loads these libraries on a background thread (a request's prefetch_libraries), so that a
    // later request finds them open. Failures are left for that request to report.
    void prefetch(const std::vector<std::string>& paths);
    bool loaded(const std::string& path);  // open already (preloaded, prefetched or used)

    // Facts for Pong: pid, CUDA_VISIBLE_DEVICES, the visible device count and device 0's name, PCI bus id
    // and compute capability (only when CUDA_VISIBLE_DEVICES is set, so CPU workers never touch the driver).
    static nlohmann::json describe_process();

    // How long the worker lingers when told to exit: 0, except after a test request "slow_exit"
    // (a fixed value, like "value", whose test_sleep_ms stands for a driver's slow teardown).
    double exit_delay_ms() const { return exit_delay_ms_; }

private:
    BenchmarkResult run_test(const BenchmarkRequest& req);
    BenchmarkResult run_cpp(const BenchmarkRequest& req);
    BenchmarkResult run_cuda(const BenchmarkRequest& req);
    // Triton cubins and cuBLAS calls (executor_compiled.cpp): kernels that need no library.
    BenchmarkResult run_compiled(const BenchmarkRequest& req);
    Result<cuda::CUfunction> triton_function(const TritonBinary& b);
    Result<std::uint64_t> ones(const std::string& dtype, std::int64_t n);
    // The reference (extern) choice's output on this device, computed once per op and kept there.
    Result<cuda::CUdeviceptr> reference_on_device(CudaBench& bench, const BenchmarkRequest& req,
                                                  const std::vector<std::uint64_t>& inputs);
    // The first run's output against it, on the device: empty when within tolerance, else the
    // report ("mismatch: N of M elements differ ...").
    Result<std::string> check_on_device(CudaBench& bench, const BenchmarkRequest& req,
                                        const std::vector<std::uint64_t>& inputs, cuda::CUdeviceptr storage);
    // Saves the output (the reference choice) or compares it with the reference's; empty reason: fine.
    BenchmarkResult verify_output(const BenchmarkRequest& req, std::span<const std::byte> out);

    Result<std::shared_ptr<codecache::Library>> library(const std::string& path);
    const std::vector<std::byte>& host_input(const TensorMeta& t, std::uint64_t seed);
    const std::vector<std::byte>& host_output_init(const TensorMeta& t, std::uint64_t seed);
    // The reference choice's output, read once per worker (no copy per choice: it can be large).
    Result<const std::vector<std::byte>*> reference(const std::string& path, std::size_t bytes);

    void loader_loop();

    double exit_delay_ms_ = 0;
    int cache_root_fd_ = -1;

    std::mutex lib_mutex_;  // libraries_, the prefetch queue and the one being loaded
    std::condition_variable lib_cv_;
    std::map<std::string, std::shared_ptr<codecache::Library>> libraries_;
    std::deque<std::string> prefetch_queue_;
    std::set<std::string> loading_;
    bool stopping_ = false;
    std::thread loader_;  // started by the first prefetch
    std::map<std::string, std::vector<std::byte>> host_inputs_;
    std::map<std::string, std::vector<std::byte>> host_outputs_;  // the output's random start
    std::map<std::string, std::vector<std::byte>> references_;
    std::map<int, std::unique_ptr<CudaBench>> cuda_;     // by device ordinal
    std::map<std::string, cuda::CUfunction> functions_;  // loaded Triton kernels, by cubin path
    std::vector<cuda::CUmodule> modules_;
    std::unique_ptr<cuda::Cublas> cublas_;
    std::map<std::string, std::uint64_t> ones_;  // device buffers of ones, by dtype and length
    friend class CudaBench;
};

// Calls `fn` with `args` as 64-bit integer registers (pointers and integers alike), the seed's
// ctypes convention. At most 24 arguments.
Result<std::uint64_t> call_with_u64_args(void* fn, const std::vector<std::uint64_t>& args);

}  // namespace kiln::worker
