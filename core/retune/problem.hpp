#pragma once
// The problem an autotuned op solves, from the timing cache's inputs key: each input tensor
// (dtype, sizes, strides, storage offset) as a benchmark request's TensorMeta, the GEMM's sizes
// (M, N, K and the batch B) and the output torch's benchmark writes (contiguous, the inputs' dtype).
// Op families: mm (A, B), addmm (bias, A, B), bmm (A, B, 3-D), baddbmm (bias, A, B, 3-D).
#include <cstdint>
#include <string>
#include <vector>

#include "util/result.hpp"
#include "worker/tensor.hpp"

namespace kiln::retune {

enum class OpFamily { mm, addmm, bmm, baddbmm };

struct Problem {
    OpFamily family = OpFamily::mm;
    std::vector<worker::TensorMeta> inputs;  // in the inputs key's order
    worker::TensorMeta output;
    std::int64_t M = 0, N = 0, K = 0, B = 1;
    int a_index = 0, b_index = 1, bias_index = -1;  // positions of mat1, mat2 and the bias in `inputs`
};

// The inputs key's tensors. Error (parse): not a list of (device, dtype, sizes, strides, offset)
// tuples, or a size that is not an integer (a symbol: nothing to allocate).
Result<std::vector<worker::TensorMeta>> tensors_from_inputs_key(const std::string& key);

// The problem of op `op` ("mm", "addmm", "bmm", "baddbmm") at `key`. Error (unsupported) for
// another op, (invalid_argument) when the shapes do not multiply.
Result<Problem> make_problem(const std::string& op, const std::string& key);

// The value of a size name: "M", "N", "K", "B"; -1 for another name.
std::int64_t size_named(const Problem& p, const std::string& name);

}  // namespace kiln::retune
