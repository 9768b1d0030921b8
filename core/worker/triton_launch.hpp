#pragma once
// A compiled Triton kernel run from its cubin through the driver API, as Triton 3.6's NVIDIA
// launcher does (third_party/nvidia/backend/driver.py): cuModuleLoadData, cuModuleGetFunction,
// dynamic shared memory above 48 KB opted in with cuFuncSetAttribute, then cuLaunchKernel with
// 32 * num_warps threads and kernel parameters = the signature's non-constexpr arguments followed
// by the global-scratch and profile-scratch pointers (each grid * num_ctas * size bytes, or null
// when the metadata's size is 0).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.hpp"

namespace kiln::worker {

// One argument of a Triton kernel, in launch order (constexprs removed as Triton does).
struct KernelArg {
    std::string name;  // the kernel's parameter name: "arg_A", "out_ptr0", "ks0"
    std::string type;  // Triton's signature type: "*fp16", "i32", "i64", "fp32"
    // What it is bound to: "input:<i>" (the i-th tensor of the request), "output", or a size name
    // ("M", "N", "K", "B") whose value `value` holds.
    std::string binds;
    std::int64_t value = 0;
};

// The compiled kernel, from the Triton cache's metadata JSON beside the cubin.
struct TritonBinary {
    // The .cubin and .ptx ("" if absent) relative to the cache root the worker was given (kiln-worker
    // --root-fd: the root the command opened), read beneath it: never a path opened again (issue 44).
    std::string cubin;
    std::string ptx;
    std::string function;  // metadata "name": the kernel's symbol in the cubin
    int arch = 0;          // target arch, e.g. 90
    int num_warps = 0;
    int num_ctas = 1;
    int shared = 0;  // dynamic shared memory in bytes
    std::int64_t global_scratch_size = 0, global_scratch_align = 1;
    std::int64_t profile_scratch_size = 0, profile_scratch_align = 1;
    std::array<int, 3> cluster_dims{1, 1, 1};
    bool cooperative = false, pdl = false;
    bool has_tensor_descriptors = false;  // tensordesc_meta not empty (TMA descriptors to build)
};

struct TritonLaunch {
    TritonBinary binary;
    std::array<std::int64_t, 3> grid{1, 1, 1};
    std::vector<KernelArg> args;
};

// Why Kiln's launcher cannot run this binary ("" when it can): clusters, cooperative or PDL
// launches and TMA descriptors are not supported.
std::string launch_unsupported(const TritonBinary& b);

// The kernel parameters' bytes in launch order: each argument at its natural size and alignment
// (pointers and 64-bit ints 8 bytes, i32 and fp32 4), then the two scratch pointers. `inputs` are
// the device addresses of the request's tensors (offsets applied), `output` the output's.
struct PackedParams {
    std::vector<std::uint64_t> storage;  // one 8-byte slot per parameter
    std::vector<void*> pointers;         // what cuLaunchKernel's kernelParams gets
};
Result<PackedParams> pack_params(const std::vector<KernelArg>& args, const std::vector<std::uint64_t>& inputs,
                                 std::uint64_t output, std::uint64_t global_scratch, std::uint64_t profile_scratch);

// Scratch bytes the launcher allocates: grid * num_ctas * size, 0 when the size is 0.
std::uint64_t scratch_bytes(const std::array<std::int64_t, 3>& grid, int num_ctas, std::int64_t size);

nlohmann::json to_json(const KernelArg& a);
KernelArg kernel_arg_from_json(const nlohmann::json& j);
nlohmann::json to_json(const TritonBinary& b);
TritonBinary triton_binary_from_json(const nlohmann::json& j);
nlohmann::json to_json(const TritonLaunch& l);
TritonLaunch triton_launch_from_json(const nlohmann::json& j);

}  // namespace kiln::worker
