#pragma once
// cuBLAS opened at run time with dlopen, like libcuda (driver.hpp): Kiln's binaries start without
// it and only the extern choices of `kiln-cli retune` need it. Looked for in $KILN_CUBLAS (a file),
// then libcublas.so.13 / .12 on the loader's path, then torch's wheels (site-packages/nvidia/
// cublas/lib, nvidia/cu13/lib) and /usr/local/cuda/lib64.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/driver.hpp"
#include "util/result.hpp"

namespace kiln::cuda {

// One GEMM in cuBLAS's column-major terms: the row-major torch problem C = A @ B is computed as
// C^T = B^T @ A^T, so cuBLAS's A is torch's mat2 and its B torch's mat1 (retune/gemm_plan.hpp).
struct GemmCall {
    std::string api = "cublasGemmEx";       // or "cublasGemmStridedBatchedEx"
    bool trans_a = false, trans_b = false;  // of cuBLAS's A and B
    std::int64_t m = 0, n = 0, k = 0;
    std::int64_t lda = 0, ldb = 0, ldc = 0;
    std::int64_t batch = 1, stride_a = 0, stride_b = 0, stride_c = 0;
    int a_input = 1, b_input = 0;  // which request tensor is cuBLAS's A and B
    std::string dtype;             // "float16", "bfloat16", "float32"
    bool tf32 = false;             // float32 on TF32 tensor cores (matmul precision other than "highest")
    double alpha = 1, beta = 0;
    // addmm/baddbmm: the bias tensor and how it reaches the output before the GEMM adds it with
    // beta 1: "copy" (same layout as the output: a device copy), "rows" (one row repeated: stride 0
    // over M; a rank-1 GEMM with a ones vector writes it), "cols" (one column repeated).
    int bias_input = -1;
    std::string bias_fill;
    std::int64_t bias_rows = 0, bias_cols = 0;  // the output's M and N (per batch)

    std::string describe() const;  // "cublasGemmEx(N,T, m=256 n=1024 k=2048, lda=256 ...)"
};
nlohmann::json to_json(const GemmCall& g);
GemmCall gemm_call_from_json(const nlohmann::json& j);

// Where cuBLAS would be loaded from ("" if nowhere); no loading.
std::string find_cublas();

struct CublasFns;

class Cublas {
public:
    // Loads the library (once per process) and makes a handle on the current context.
    static Result<std::unique_ptr<Cublas>> create();
    // Only the loading (dlopen and the symbols; no context needed): called early on a thread of
    // its own, it overlaps the context's creation, and create() then waits for it, not again.
    static Status load();
    static double load_ms();  // how long that loading took (0 before it or when it failed)
    ~Cublas();
    Cublas(const Cublas&) = delete;
    Cublas& operator=(const Cublas&) = delete;

    // Runs `call` on `stream`. `tensors` are the request's device addresses (offsets applied),
    // `out` the output's. `ones` (for a broadcast bias) must hold max(M, N) ones of the dtype.
    Status run(const GemmCall& call, const std::vector<std::uint64_t>& tensors, std::uint64_t out, std::uint64_t ones,
               CUstream stream);
    const std::string& path() const { return path_; }

private:
    Cublas() = default;
    const CublasFns* fns_ = nullptr;
    void* handle_ = nullptr;
    CUdeviceptr workspace_ = 0;
    CUstream bound_stream_ = nullptr;
    std::string path_;
};

}  // namespace kiln::cuda
