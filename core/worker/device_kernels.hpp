#pragma once
// Kiln's own kernels on a worker's GPU (device_kernels.cu, shipped as PTX and JIT-compiled by the
// driver): random inputs made where they are used, and outputs checked against the reference
// where they are, so that a re-tune moves no tensor over PCIe. Callers fall back to the host
// path when these fail (a driver too old for the PTX, a dtype they do not cover).
#include <cstdint>

#include "cuda/driver.hpp"
#include "worker/tensor.hpp"

namespace kiln::worker {

class DeviceKernels {
public:
    // Loads the module into the current context. Error: the driver refused the PTX.
    static Result<DeviceKernels> load(const cuda::Api* api);

    static bool covers(DType d) { return d == DType::f32 || d == DType::f16 || d == DType::bf16; }
    // The same values as random_storage(meta, seed) for float32; float16/bfloat16 round the same
    // magnitudes to nearest. Asynchronous on `stream`.
    Status fill_random(cuda::CUdeviceptr out, std::uint64_t elements, DType dtype, std::uint64_t seed,
                       cuda::CUstream stream) const;
    // Adds to *bad (device memory, one unsigned 64-bit counter) the number of elements with
    // !(|a - b| <= atol + rtol * |b|) or a non-finite a. Asynchronous on `stream`.
    Status count_mismatches(cuda::CUdeviceptr a, cuda::CUdeviceptr b, std::uint64_t elements, DType dtype,
                            const Tolerance& tol, cuda::CUdeviceptr bad, cuda::CUstream stream) const;

private:
    const cuda::Api* api_ = nullptr;
    cuda::CUmodule module_ = nullptr;
    cuda::CUfunction fill_ = nullptr, compare_ = nullptr;
};

}  // namespace kiln::worker
