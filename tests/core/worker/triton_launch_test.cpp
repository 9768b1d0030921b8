// Triton kernel parameters packed as Triton 3.6's launcher passes them, what Kiln's launcher
// refuses, and the requests' JSON for the compiled-kernel kinds.
#include <gtest/gtest.h>

#include <cstring>

#include "worker/protocol.hpp"
#include "worker/triton_launch.hpp"

using namespace kiln::worker;

TEST(TritonLaunch, ParametersAreTheArgumentsThenBothScratchPointers) {
    std::vector<KernelArg> args{{"in_ptr0", "*fp16", "input:0", 0}, {"arg_A", "*fp16", "input:1", 0},
                                {"out_ptr0", "*fp16", "output", 0}, {"ks0", "i32", "M", -7},
                                {"ks1", "i64", "N", 1ll << 40},     {"scale", "fp32", "K", 3}};
    auto p = pack_params(args, {0x1000, 0x2000}, 0x3000, 0x4000, 0);
    ASSERT_TRUE(p.ok()) << p.error().str();
    ASSERT_EQ(p->pointers.size(), 8u);  // 6 arguments + global scratch + profile scratch
    auto u64 = [&](std::size_t i) { return *static_cast<const std::uint64_t*>(p->pointers[i]); };
    EXPECT_EQ(u64(0), 0x1000u);
    EXPECT_EQ(u64(1), 0x2000u);
    EXPECT_EQ(u64(2), 0x3000u);
    std::int32_t i32 = 0;
    std::memcpy(&i32, p->pointers[3], 4);
    EXPECT_EQ(i32, -7);
    std::int64_t i64 = 0;
    std::memcpy(&i64, p->pointers[4], 8);
    EXPECT_EQ(i64, 1ll << 40);
    float f = 0;
    std::memcpy(&f, p->pointers[5], 4);
    EXPECT_EQ(f, 3.0f);
    EXPECT_EQ(u64(6), 0x4000u);
    EXPECT_EQ(u64(7), 0u);  // no profile scratch: a null pointer, as Triton passes None
}

TEST(TritonLaunch, BadBindingsAreErrors) {
    EXPECT_FALSE(pack_params({{"a", "*fp16", "input:3", 0}}, {1, 2}, 3, 0, 0).ok());
    EXPECT_FALSE(pack_params({{"a", "*fp16", "", 0}}, {1}, 3, 0, 0).ok());
    auto bad = pack_params({{"d", "nvTmaDesc", "", 0}}, {}, 0, 0, 0);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, kiln::Errc::unsupported);
}

TEST(TritonLaunch, ScratchIsGridTimesCtasTimesSize) {
    EXPECT_EQ(scratch_bytes({6, 2, 1}, 1, 128), 6u * 2 * 128);
    EXPECT_EQ(scratch_bytes({6, 2, 1}, 2, 128), 6u * 2 * 2 * 128);
    EXPECT_EQ(scratch_bytes({6, 2, 1}, 1, 0), 0u);
}

TEST(TritonLaunch, ClustersCooperativeLaunchesAndDescriptorsAreRefused) {
    TritonBinary b;
    b.num_warps = 4;
    EXPECT_EQ(launch_unsupported(b), "");
    auto cluster = b;
    cluster.num_ctas = 2;
    EXPECT_NE(launch_unsupported(cluster).find("cluster"), std::string::npos);
    auto coop = b;
    coop.cooperative = true;
    EXPECT_NE(launch_unsupported(coop).find("cooperative"), std::string::npos);
    auto desc = b;
    desc.has_tensor_descriptors = true;
    EXPECT_NE(launch_unsupported(desc).find("TMA"), std::string::npos);
    auto profiled = b;
    profiled.profile_scratch_size = 64;
    EXPECT_NE(launch_unsupported(profiled).find("profile"), std::string::npos);
}

TEST(TritonLaunch, TritonAndGemmRequestsSurviveTheProtocol) {
    BenchmarkRequest r;
    r.kind = RequestKind::triton;
    r.choice = "triton_mm-c1";
    r.triton.binary.cubin = "/c/triton_mm.cubin";
    r.triton.binary.function = "triton_mm";
    r.triton.binary.num_warps = 4;
    r.triton.binary.shared = 65536;
    r.triton.binary.global_scratch_size = 32;
    r.triton.grid = {12, 3, 1};
    r.triton.args = {{"arg_A", "*fp16", "input:0", 0}, {"ks0", "i32", "M", 512}};
    auto back = request_from_json(to_json(r));
    ASSERT_TRUE(back.ok()) << back.error().str();
    EXPECT_EQ(back->kind, RequestKind::triton);
    EXPECT_EQ(back->triton.binary.cubin, "/c/triton_mm.cubin");
    EXPECT_EQ(back->triton.binary.shared, 65536);
    EXPECT_EQ(back->triton.binary.global_scratch_size, 32);
    EXPECT_EQ(back->triton.grid, (std::array<std::int64_t, 3>{12, 3, 1}));
    ASSERT_EQ(back->triton.args.size(), 2u);
    EXPECT_EQ(back->triton.args[1].value, 512);

    BenchmarkRequest g;
    g.kind = RequestKind::gemm;
    g.gemm.api = "cublasGemmStridedBatchedEx";
    g.gemm.m = 7;
    g.gemm.trans_a = true;
    g.gemm.batch = 4;
    g.gemm.bias_input = 0;
    g.gemm.bias_fill = "rows";
    g.gemm.dtype = "bfloat16";
    auto gb = request_from_json(to_json(g));
    ASSERT_TRUE(gb.ok());
    EXPECT_EQ(gb->kind, RequestKind::gemm);
    EXPECT_EQ(gb->gemm.api, "cublasGemmStridedBatchedEx");
    EXPECT_EQ(gb->gemm.m, 7);
    EXPECT_TRUE(gb->gemm.trans_a);
    EXPECT_EQ(gb->gemm.batch, 4);
    EXPECT_EQ(gb->gemm.bias_fill, "rows");
    EXPECT_EQ(gb->gemm.dtype, "bfloat16");
}
