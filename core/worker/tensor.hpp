#pragma once
// Tensor metadata of a benchmark request (autotune_process.py TensorMeta) and host buffers built
// from it: storage large enough for sizes/strides/offset (rand_strided's extra_size), filled with
// seeded random values that are never zero, and compared element-wise within a tolerance.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.hpp"

namespace kiln::worker {

enum class DType { f32, f64, f16, bf16, i8, u8, i32, i64 };

Result<DType> parse_dtype(const std::string& s);  // "float32", "torch.float32", "f32", "half", ...
std::string torch_dtype_name(DType d);            // "torch.float32"
std::size_t dtype_size(DType d);

struct TensorMeta {
    std::string name;
    DType dtype = DType::f32;
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> strides;  // empty: contiguous
    std::int64_t offset = 0;

    std::vector<std::int64_t> effective_strides() const;
    std::size_t storage_elements() const;  // offset + 1 + sum((size-1)*stride), 0 for an empty tensor
    std::size_t storage_bytes() const { return storage_elements() * dtype_size(dtype); }
};

nlohmann::json to_json(const TensorMeta& t);
Result<TensorMeta> tensor_from_json(const nlohmann::json& j, const std::string& context);

// Inductor's autotune inputs key: repr of a list of (device type, dtype, sizes..., strides..., offset).
std::string inputs_key(const std::string& device_type, const std::vector<TensorMeta>& inputs);

// Seeded random storage for `t`, never zeros (random_fill of floats draws from [-1, -0.1] u [0.1, 1]).
std::vector<std::byte> random_storage(const TensorMeta& t, std::uint64_t seed);

struct Tolerance {
    double rtol = 1e-4;
    double atol = 1e-4;
};

// Compares the logical elements of two storages of `t`. Empty string: equal within tolerance;
// otherwise a description of the first mismatch.
std::string compare_storage(const TensorMeta& t, const std::byte* got, const std::byte* want, const Tolerance& tol);

}  // namespace kiln::worker
