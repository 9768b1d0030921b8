#pragma once
// Timing of CUDA kernels through the driver API, as triton.testing.do_bench does it: CUDA events
// around each run, the L2 cache cleared before each timed run with a buffer larger than it, and
// warm-up / repetition counts chosen from a first estimate over 5 runs.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <optional>

#include "cuda/driver.hpp"
#include "worker/device_kernels.hpp"
#include "worker/protocol.hpp"

namespace kiln::worker {

class CudaBench {
public:
    static Result<std::unique_ptr<CudaBench>> create(int ordinal);
    ~CudaBench();
    // Makes this device's context the calling thread's (another thread setting up cuBLAS on it).
    Status set_current();

    // Runs the seed's convention: fn(inputs..., output, extra..., size_t* workspace_size,
    // void* workspace, stream) -> int (0 = success). `output` views the output after the first run
    // (for verification), in page-locked memory owned here and valid until the next run; the
    // returned result holds the timing and, in details["phases_ms"], where the time went.
    BenchmarkResult run(const BenchmarkRequest& req, void* fn, const std::vector<const std::vector<std::byte>*>& inputs,
                        const std::vector<std::byte>& out_init, std::span<const std::byte>& output);

    // One run of the kernel on the stream; returns 0 or the error code the kernel reported.
    using Launch = std::function<int()>;
    // Makes the launch from the tensors' device addresses (offsets applied) and the output's, on
    // `stream`; it may allocate (a workspace) through `scratch_of`.
    using MakeLaunch = std::function<Result<Launch>(const std::vector<std::uint64_t>& inputs, std::uint64_t output,
                                                    cuda::CUstream stream)>;
    // The timing rule of run() for any launch: a first run (its output read back into `output`),
    // a 5-run estimate, warm-up and timed runs filling warmup_ms and rep_ms, the L2 flushed before
    // each timed run. A CUDA error (an illegal address...) fails the run with the driver's message;
    // the result's details["context_lost"] is true when the error is sticky (the context is gone).
    // With `device_check`, the output is checked on the device after the first run instead (its
    // answer: empty = fine, else why not) and read back only when a path in `req` asks for it;
    // `inputs` and `out_init` may then be empty when seed_on_device made them.
    using DeviceCheck = std::function<Result<std::string>(const std::vector<std::uint64_t>& inputs,
                                                          std::uint64_t output, cuda::CUdeviceptr output_storage)>;
    // `while_waiting` runs on this thread once the timed runs are queued, while the device drains
    // them (loading the next choices' kernels there costs the device nothing).
    BenchmarkResult run_launch(const BenchmarkRequest& req, const MakeLaunch& make,
                               const std::vector<const std::vector<std::byte>*>& inputs,
                               const std::vector<std::byte>& out_init, std::span<const std::byte>& output,
                               const DeviceCheck& device_check = {}, const std::function<void()>& while_waiting = {});
    // Makes the request's inputs and the output's random start on the device, where the host
    // would upload them: false when a dtype is not covered or the kernels did not load.
    bool seed_on_device(const BenchmarkRequest& req);
    // Device memory under `key`, made once (`fresh` then tells the caller to fill it).
    Result<cuda::CUdeviceptr> keyed_buffer(const std::string& key, std::size_t bytes, bool& fresh);
    void forget(const std::string& key);  // a keyed buffer that could not be filled
    // Elements of two device arrays outside `tol`, counted on the device; waits for the stream.
    Result<std::uint64_t> mismatches(cuda::CUdeviceptr a, cuda::CUdeviceptr b, std::uint64_t elements, DType dtype,
                                     const Tolerance& tol);
    Result<std::vector<std::byte>> read_back(cuda::CUdeviceptr p, std::size_t bytes);  // for a mismatch report
    cuda::CUstream stream() const { return stream_; }
    // The device-to-device copy of an output's random start (keyed like the inputs).
    Result<cuda::CUdeviceptr> output_start(const BenchmarkRequest& req, const std::vector<std::byte>& out_init);
    // Device memory owned here, grown as needed (a workspace, Triton's scratch).
    Result<cuda::CUdeviceptr> extra_buffer(std::size_t bytes);
    const cuda::Api* api() const { return api_; }
    int ordinal() const { return ordinal_; }

    // Uploads the inputs and the output's random start and sizes the read-back buffer, so that the
    // first choice pays for none of it (a warm-up request).
    Status prepare(const BenchmarkRequest& req, const std::vector<const std::vector<std::byte>*>& inputs,
                   const std::vector<std::byte>& out_init);

private:
    CudaBench() = default;
    static std::string input_key(const TensorMeta& t, std::uint64_t seed);
    Result<cuda::CUdeviceptr> device_input(const std::string& key, const std::vector<std::byte>& host);
    Result<std::byte*> host_pinned(std::size_t bytes);
    Result<cuda::CUdeviceptr> scratch(std::size_t bytes, cuda::CUdeviceptr& slot, std::size_t& have);
    Status ensure_events(std::size_t n);
    const DeviceKernels* kernels();  // loaded on first use; null when the driver refused them

    const cuda::Api* api_ = nullptr;
    int ordinal_ = 0;
    cuda::CUcontext ctx_ = nullptr;
    cuda::CUstream stream_ = nullptr;
    cuda::CUdeviceptr flush_ = 0;
    std::size_t flush_bytes_ = 0;
    std::size_t l2_bytes_ = 0;  // the device's L2: what torch's benchmarker zeroes before each pair
    cuda::CUdeviceptr out_ = 0, workspace_ = 0, extra_ = 0;
    std::size_t out_bytes_ = 0, workspace_bytes_ = 0, extra_bytes_ = 0;
    std::map<std::string, cuda::CUdeviceptr> inputs_;  // inputs and the outputs' random starts, uploaded once
    std::byte* pinned_ = nullptr;                      // the output read back after the first run
    std::size_t pinned_bytes_ = 0;
    std::vector<cuda::CUevent> starts_, ends_;
    std::optional<DeviceKernels> kernels_;
    bool kernels_tried_ = false;
    cuda::CUdeviceptr counter_ = 0;  // the mismatch count
};

}  // namespace kiln::worker
