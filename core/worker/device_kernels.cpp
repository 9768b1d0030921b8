#include "worker/device_kernels.hpp"

#include <algorithm>

namespace kiln::worker {

namespace {

const char kPtx[] =
#include "worker/device_kernels_ptx.inc"
    ;

std::uint32_t dtype_code(DType d) { return d == DType::f32 ? 0 : d == DType::f16 ? 1 : 2; }

// Enough blocks to fill an H100 a few times over; the kernels loop over the rest.
unsigned blocks_for(std::uint64_t elements) {
    return static_cast<unsigned>(std::clamp<std::uint64_t>((elements + 255) / 256, 1, 4096));
}

}  // namespace

Result<DeviceKernels> DeviceKernels::load(const cuda::Api* api) {
    DeviceKernels k;
    k.api_ = api;
    KILN_CHECK(cuda::check(api->cuModuleLoadData(&k.module_, kPtx), "cuModuleLoadData(Kiln's device kernels)"));
    KILN_CHECK(cuda::check(api->cuModuleGetFunction(&k.fill_, k.module_, "kiln_fill_random"), "cuModuleGetFunction"));
    KILN_CHECK(
        cuda::check(api->cuModuleGetFunction(&k.compare_, k.module_, "kiln_count_mismatches"), "cuModuleGetFunction"));
    return k;
}

Status DeviceKernels::fill_random(cuda::CUdeviceptr out, std::uint64_t elements, DType dtype, std::uint64_t seed,
                                  cuda::CUstream stream) const {
    if (!covers(dtype)) return make_error(Errc::unsupported, "no device fill for " + torch_dtype_name(dtype));
    if (elements == 0) return ok_status();
    std::uint32_t code = dtype_code(dtype);
    void* params[] = {&out, &elements, &code, &seed};
    return cuda::check(api_->cuLaunchKernel(fill_, blocks_for(elements), 1, 1, 256, 1, 1, 0, stream, params, nullptr),
                       "cuLaunchKernel(kiln_fill_random)");
}

Status DeviceKernels::count_mismatches(cuda::CUdeviceptr a, cuda::CUdeviceptr b, std::uint64_t elements, DType dtype,
                                       const Tolerance& tol, cuda::CUdeviceptr bad, cuda::CUstream stream) const {
    if (!covers(dtype)) return make_error(Errc::unsupported, "no device check for " + torch_dtype_name(dtype));
    if (elements == 0) return ok_status();
    std::uint32_t code = dtype_code(dtype);
    float atol = static_cast<float>(tol.atol), rtol = static_cast<float>(tol.rtol);
    void* params[] = {&a, &b, &elements, &code, &atol, &rtol, &bad};
    return cuda::check(
        api_->cuLaunchKernel(compare_, blocks_for(elements), 1, 1, 256, 1, 1, 0, stream, params, nullptr),
        "cuLaunchKernel(kiln_count_mismatches)");
}

}  // namespace kiln::worker
