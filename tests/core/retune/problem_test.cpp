// Inputs keys to tensors and the GEMM problem of each op family; the cuBLAS call planned for each
// extern choice.
#include <gtest/gtest.h>

#include "retune/gemm_plan.hpp"
#include "retune/problem.hpp"

using namespace kiln::retune;
using kiln::worker::DType;

TEST(RetuneProblem, TheInputsKeyBecomesTensors) {
    auto t = tensors_from_inputs_key(
        "[('cuda', 'torch.float16', 1024, 2048, 2048, 1, 0), ('cuda', 'torch.bfloat16', 2048, 256, 1, 2048, 64)]");
    ASSERT_TRUE(t.ok()) << t.error().str();
    ASSERT_EQ(t->size(), 2u);
    EXPECT_EQ((*t)[0].dtype, DType::f16);
    EXPECT_EQ((*t)[0].sizes, (std::vector<std::int64_t>{1024, 2048}));
    EXPECT_EQ((*t)[0].strides, (std::vector<std::int64_t>{2048, 1}));
    EXPECT_EQ((*t)[0].offset, 0);
    EXPECT_EQ((*t)[1].dtype, DType::bf16);
    EXPECT_EQ((*t)[1].strides, (std::vector<std::int64_t>{1, 2048}));
    EXPECT_EQ((*t)[1].offset, 64);
}

TEST(RetuneProblem, SymbolicSizesAndBadKeysAreErrors) {
    auto sym = tensors_from_inputs_key("[('cuda', 'torch.float16', s0, 512, 512, 1, 0)]");
    ASSERT_FALSE(sym.ok());
    EXPECT_NE(sym.error().message.find("non-integer size"), std::string::npos);
    EXPECT_FALSE(tensors_from_inputs_key("not a key").ok());
    EXPECT_FALSE(tensors_from_inputs_key("[('cuda', 'torch.complex64', 4, 1, 0)]").ok());
}

TEST(RetuneProblem, OpFamiliesGiveTheirSizes) {
    auto mm = make_problem(
        "mm", "[('cuda', 'torch.float16', 64, 32, 32, 1, 0), ('cuda', 'torch.float16', 32, 16, 16, 1, 0)]");
    ASSERT_TRUE(mm.ok()) << mm.error().str();
    EXPECT_EQ(mm->M, 64);
    EXPECT_EQ(mm->K, 32);
    EXPECT_EQ(mm->N, 16);
    EXPECT_EQ(mm->output.sizes, (std::vector<std::int64_t>{64, 16}));
    EXPECT_TRUE(mm->output.strides.empty());  // contiguous
    EXPECT_EQ(mm->bias_index, -1);

    auto addmm =
        make_problem("addmm",
                     "[('cuda', 'torch.float32', 64, 16, 0, 1, 0), ('cuda', 'torch.float32', 64, 32, 32, 1, 0), "
                     "('cuda', 'torch.float32', 32, 16, 16, 1, 0)]");
    ASSERT_TRUE(addmm.ok()) << addmm.error().str();
    EXPECT_EQ(addmm->bias_index, 0);
    EXPECT_EQ(addmm->a_index, 1);
    EXPECT_EQ(addmm->b_index, 2);
    EXPECT_EQ(addmm->M, 64);
    EXPECT_EQ(addmm->N, 16);

    auto bmm = make_problem("bmm",
                            "[('cuda', 'torch.bfloat16', 8, 64, 32, 2048, 32, 1, 0), "
                            "('cuda', 'torch.bfloat16', 8, 32, 16, 512, 16, 1, 0)]");
    ASSERT_TRUE(bmm.ok()) << bmm.error().str();
    EXPECT_EQ(bmm->B, 8);
    EXPECT_EQ(bmm->output.sizes, (std::vector<std::int64_t>{8, 64, 16}));
    EXPECT_EQ(size_named(*bmm, "B"), 8);
    EXPECT_EQ(size_named(*bmm, "X"), -1);
}

TEST(RetuneProblem, ShapesThatDoNotMultiplyOrUnknownOpsAreErrors) {
    auto bad = make_problem(
        "mm", "[('cuda', 'torch.float16', 64, 32, 32, 1, 0), ('cuda', 'torch.float16', 16, 16, 16, 1, 0)]");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, kiln::Errc::invalid_argument);
    auto conv = make_problem("convolution", "[('cuda', 'torch.float16', 64, 32, 32, 1, 0)]");
    ASSERT_FALSE(conv.ok());
    EXPECT_EQ(conv.error().code, kiln::Errc::unsupported);
    auto three = make_problem("mm", "[('cuda', 'torch.float16', 64, 32, 32, 1, 0)]");
    EXPECT_FALSE(three.ok());
}

namespace {
Problem problem(const std::string& op, const std::string& key) {
    auto p = make_problem(op, key);
    EXPECT_TRUE(p.ok()) << p.error().str();
    return p.ok() ? *p : Problem{};
}
}  // namespace

TEST(RetuneGemmPlan, RowMajorMmIsTwoNonTransposedOperands) {
    auto p = problem(
        "mm", "[('cuda', 'torch.float16', 1024, 2048, 2048, 1, 0), ('cuda', 'torch.float16', 2048, 256, 256, 1, 0)]");
    auto g = plan_gemm("mm", p, "highest");
    ASSERT_TRUE(g.ok()) << g.error().str();
    // C^T (256 x 1024) = mat2^T (256 x 2048) @ mat1^T (2048 x 1024), all column-major as stored.
    EXPECT_EQ(g->api, "cublasGemmEx");
    EXPECT_FALSE(g->trans_a);
    EXPECT_FALSE(g->trans_b);
    EXPECT_EQ(g->m, 256);
    EXPECT_EQ(g->n, 1024);
    EXPECT_EQ(g->k, 2048);
    EXPECT_EQ(g->lda, 256);
    EXPECT_EQ(g->ldb, 2048);
    EXPECT_EQ(g->ldc, 256);
    EXPECT_EQ(g->a_input, 1);
    EXPECT_EQ(g->b_input, 0);
    EXPECT_EQ(g->dtype, "float16");
    EXPECT_FALSE(g->tf32);
    EXPECT_EQ(g->bias_input, -1);
}

TEST(RetuneGemmPlan, TransposedInputsUseTransposedOperands) {
    // mat1 stored column-major (strides 1, M), mat2 column-major (strides 1, K).
    auto p =
        problem("mm", "[('cuda', 'torch.float32', 64, 32, 1, 64, 0), ('cuda', 'torch.float32', 32, 16, 1, 32, 0)]");
    auto g = plan_gemm("mm", p, "high");
    ASSERT_TRUE(g.ok()) << g.error().str();
    EXPECT_TRUE(g->trans_a);
    EXPECT_EQ(g->lda, 32);
    EXPECT_TRUE(g->trans_b);
    EXPECT_EQ(g->ldb, 64);
    EXPECT_TRUE(g->tf32);  // float32 at precision "high" runs on TF32, as torch's matmul does
}

TEST(RetuneGemmPlan, BmmIsStridedBatched) {
    auto p = problem("bmm",
                     "[('cuda', 'torch.bfloat16', 8, 64, 32, 2048, 32, 1, 0), "
                     "('cuda', 'torch.bfloat16', 8, 32, 16, 512, 16, 1, 0)]");
    auto g = plan_gemm("bmm", p, "highest");
    ASSERT_TRUE(g.ok()) << g.error().str();
    EXPECT_EQ(g->api, "cublasGemmStridedBatchedEx");
    EXPECT_EQ(g->batch, 8);
    EXPECT_EQ(g->stride_a, 512);
    EXPECT_EQ(g->stride_b, 2048);
    EXPECT_EQ(g->stride_c, 64 * 16);
    EXPECT_EQ(g->dtype, "bfloat16");
}

TEST(RetuneGemmPlan, AddmmAndBiasAddmmFillTheBiasFirst) {
    const std::string rows =
        "[('cuda', 'torch.float16', 64, 16, 0, 1, 0), ('cuda', 'torch.float16', 64, 32, 32, 1, 0), "
        "('cuda', 'torch.float16', 32, 16, 16, 1, 0)]";
    for (const char* name : {"addmm", "bias_addmm"}) {
        auto g = plan_gemm(name, problem("addmm", rows), "highest");
        ASSERT_TRUE(g.ok()) << g.error().str();
        EXPECT_EQ(g->bias_input, 0);
        EXPECT_EQ(g->bias_fill, "rows");
        EXPECT_EQ(g->beta, 1);
        EXPECT_EQ(g->a_input, 2);
        EXPECT_EQ(g->b_input, 1);
        EXPECT_EQ(g->bias_rows, 64);
        EXPECT_EQ(g->bias_cols, 16);
    }
    auto full = plan_gemm("addmm",
                          problem("addmm",
                                  "[('cuda', 'torch.float16', 64, 16, 16, 1, 0), ('cuda', 'torch.float16', "
                                  "64, 32, 32, 1, 0), ('cuda', 'torch.float16', 32, 16, 16, 1, 0)]"),
                          "highest");
    ASSERT_TRUE(full.ok());
    EXPECT_EQ(full->bias_fill, "copy");
    auto cols = plan_gemm("addmm",
                          problem("addmm",
                                  "[('cuda', 'torch.float16', 64, 16, 1, 0, 0), ('cuda', 'torch.float16', "
                                  "64, 32, 32, 1, 0), ('cuda', 'torch.float16', 32, 16, 16, 1, 0)]"),
                          "highest");
    ASSERT_TRUE(cols.ok());
    EXPECT_EQ(cols->bias_fill, "cols");
}

TEST(RetuneGemmPlan, BaddbmmCopiesAContiguousBias) {
    auto p = problem("baddbmm",
                     "[('cuda', 'torch.float16', 4, 8, 16, 128, 16, 1, 0), "
                     "('cuda', 'torch.float16', 4, 8, 32, 256, 32, 1, 0), "
                     "('cuda', 'torch.float16', 4, 32, 16, 512, 16, 1, 0)]");
    auto g = plan_gemm("baddbmm", p, "highest");
    ASSERT_TRUE(g.ok()) << g.error().str();
    EXPECT_EQ(g->api, "cublasGemmStridedBatchedEx");
    EXPECT_EQ(g->bias_fill, "copy");
    EXPECT_EQ(g->batch, 4);
    auto broadcast = problem("baddbmm",
                             "[('cuda', 'torch.float16', 4, 8, 16, 0, 0, 1, 0), "
                             "('cuda', 'torch.float16', 4, 8, 32, 256, 32, 1, 0), "
                             "('cuda', 'torch.float16', 4, 32, 16, 512, 16, 1, 0)]");
    auto b = plan_gemm("baddbmm", broadcast, "highest");
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.error().code, kiln::Errc::unsupported);
}

TEST(RetuneGemmPlan, UnplannableLayoutsAndMismatchedExternsAreUnsupported) {
    // mat1 with strides (64, 2): neither row- nor column-major.
    auto odd =
        problem("mm", "[('cuda', 'torch.float16', 64, 32, 64, 2, 0), ('cuda', 'torch.float16', 32, 16, 16, 1, 0)]");
    auto g = plan_gemm("mm", odd, "highest");
    ASSERT_FALSE(g.ok());
    EXPECT_NE(g.error().message.find("mat1 has strides (64, 2)"), std::string::npos) << g.error().message;
    auto mm =
        problem("mm", "[('cuda', 'torch.float16', 64, 32, 32, 1, 0), ('cuda', 'torch.float16', 32, 16, 16, 1, 0)]");
    EXPECT_FALSE(plan_gemm("bmm", mm, "highest").ok());
    EXPECT_FALSE(plan_gemm("cutlass_gemm", mm, "highest").ok());
    EXPECT_TRUE(is_known_extern("bias_addmm"));
    EXPECT_FALSE(is_known_extern("triton_mm"));
}
