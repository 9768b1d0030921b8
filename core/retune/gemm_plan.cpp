#include "retune/gemm_plan.hpp"

namespace kiln::retune {

namespace {

struct Operand {
    bool trans = false;
    std::int64_t ld = 0;
};

// A row-major matrix (rows x cols, strides sr, sc) as cuBLAS's column-major operand of shape
// cols x rows (its transpose): stored as is when sc == 1, transposed when sr == 1.
Result<Operand> operand(std::int64_t rows, std::int64_t cols, std::int64_t sr, std::int64_t sc, const char* what) {
    if (sc == 1 && sr >= std::max<std::int64_t>(1, cols)) return Operand{false, sr};
    if (sr == 1 && sc >= std::max<std::int64_t>(1, rows)) return Operand{true, sc};
    // A dimension of size 1 has no meaningful stride: the other layout then works.
    if (rows == 1 && sc == 1) return Operand{false, std::max<std::int64_t>(1, cols)};
    if (cols == 1 && sr == 1) return Operand{true, std::max<std::int64_t>(1, rows)};
    return make_error(Errc::unsupported, std::string(what) + " has strides (" + std::to_string(sr) + ", " +
                                             std::to_string(sc) +
                                             "), neither row- nor column-major: ATen copies it before cuBLAS");
}

std::string dtype_name(worker::DType d) {
    switch (d) {
        case worker::DType::f16: return "float16";
        case worker::DType::bf16: return "bfloat16";
        case worker::DType::f32: return "float32";
        default: return {};
    }
}

}  // namespace

bool is_known_extern(const std::string& stem) {
    return stem == "mm" || stem == "addmm" || stem == "bias_addmm" || stem == "bmm" || stem == "baddbmm";
}

Result<cuda::GemmCall> plan_gemm(const std::string& name, const Problem& p, const std::string& precision) {
    bool batched = p.family == OpFamily::bmm || p.family == OpFamily::baddbmm;
    bool with_bias = p.family == OpFamily::addmm || p.family == OpFamily::baddbmm;
    bool fits = (name == "mm" && p.family == OpFamily::mm) || (name == "bmm" && p.family == OpFamily::bmm) ||
                ((name == "addmm" || name == "bias_addmm") && p.family == OpFamily::addmm) ||
                (name == "baddbmm" && p.family == OpFamily::baddbmm);
    if (!fits) return make_error(Errc::unsupported, "extern choice '" + name + "' does not compute this op");
    cuda::GemmCall g;
    g.dtype = dtype_name(p.output.dtype);
    if (g.dtype.empty())
        return make_error(Errc::unsupported, "dtype " + worker::torch_dtype_name(p.output.dtype) +
                                                 " has no cuBLAS plan (float16, bfloat16, float32 only)");
    for (const auto& t : p.inputs)
        if (t.dtype != p.output.dtype)
            return make_error(Errc::unsupported, "inputs of mixed dtypes have no cuBLAS plan");
    g.tf32 = g.dtype == "float32" && precision != "highest";
    const auto& A = p.inputs[static_cast<std::size_t>(p.a_index)];
    const auto& B = p.inputs[static_cast<std::size_t>(p.b_index)];
    std::size_t r = batched ? 1 : 0;
    // cuBLAS's A is torch's mat2 (K x N), its B torch's mat1 (M x K).
    KILN_TRY(auto oa, operand(p.K, p.N, B.strides[r], B.strides[r + 1], "mat2"));
    KILN_TRY(auto ob, operand(p.M, p.K, A.strides[r], A.strides[r + 1], "mat1"));
    g.trans_a = oa.trans;
    g.lda = oa.ld;
    g.trans_b = ob.trans;
    g.ldb = ob.ld;
    g.a_input = p.b_index;
    g.b_input = p.a_index;
    g.m = p.N;
    g.n = p.M;
    g.k = p.K;
    g.ldc = std::max<std::int64_t>(1, p.N);
    if (batched) {
        g.api = "cublasGemmStridedBatchedEx";
        g.batch = p.B;
        g.stride_a = B.strides[0];
        g.stride_b = A.strides[0];
        g.stride_c = p.M * p.N;
    }
    if (with_bias) {
        const auto& bias = p.inputs[static_cast<std::size_t>(p.bias_index)];
        g.bias_input = p.bias_index;
        g.beta = 1;
        g.bias_rows = p.M;
        g.bias_cols = p.N;
        auto s = bias.strides;
        std::vector<std::int64_t> dense =
            batched ? std::vector<std::int64_t>{p.M * p.N, p.N, 1} : std::vector<std::int64_t>{p.N, 1};
        if (s == dense && bias.offset == 0) g.bias_fill = "copy";
        else if (!batched && s == std::vector<std::int64_t>{0, 1}) g.bias_fill = "rows";
        else if (!batched && s == std::vector<std::int64_t>{1, 0}) g.bias_fill = "cols";
        else
            return make_error(Errc::unsupported, "bias strides are neither the output's nor a row or column broadcast");
    }
    return g;
}

}  // namespace kiln::retune
