#pragma once
// The cuBLAS call that stands for an extern (ATen) choice: mm and addmm/bias_addmm through
// cublasGemmEx, bmm and baddbmm through cublasGemmStridedBatchedEx, as ATen's CUDA blas does
// for these layouts. The row-major problem is transposed into cuBLAS's column-major terms; an
// input whose last two strides are neither (K, 1)-like nor (1, M)-like is not plannable (ATen
// would copy it first), and that choice is reported unrunnable.
#include <string>

#include "cuda/cublas.hpp"
#include "retune/problem.hpp"
#include "util/result.hpp"

namespace kiln::retune {

// `extern_name`: the choice key's stem ("mm", "addmm", "bias_addmm", "bmm", "baddbmm");
// `precision`: the timing cache's precision key ("highest" keeps float32 off TF32).
Result<cuda::GemmCall> plan_gemm(const std::string& extern_name, const Problem& p, const std::string& precision);

// Whether `stem` names an extern choice Kiln knows how to call.
bool is_known_extern(const std::string& stem);

}  // namespace kiln::retune
