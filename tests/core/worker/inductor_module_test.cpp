// Parsing what an Inductor output-code module prints: the graph's time, and with -k one line per
// kernel. data/module_k_*.txt are real outputs of `python MODULE.py -k` (torch 2.11, H200).
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "worker/inductor_module.hpp"

using namespace kiln::worker;

namespace {
std::string data(const char* name) {
    return kiln::test::read_file(kiln::test::source_dir() / "tests/core/worker/data" / name);
}
}  // namespace

TEST(InductorModule, ParsesARealPerKernelLine) {
    auto j = parse_module_output(data("module_k_h200_one_kernel.txt"), true);
    ASSERT_TRUE(j.ok()) << j.error().str();
    ASSERT_EQ((*j)["kernels"].size(), 1u);
    const auto& k = (*j)["kernels"][0];
    EXPECT_EQ(k["key"], "czfbnyaa5i");
    EXPECT_EQ(k["category"], "UNK");
    EXPECT_DOUBLE_EQ(k["ms"].get<double>(), 0.007);
    EXPECT_DOUBLE_EQ(k["gb"].get<double>(), 0.006);
    EXPECT_DOUBLE_EQ(k["gb_per_s"].get<double>(), 928.0);
    EXPECT_EQ(k["regs"], 31);
    EXPECT_EQ(k["spills"], 0);
    EXPECT_EQ(k["shared_bytes"], 32);
}

TEST(InductorModule, ParsesEveryKernelOfARealModule) {
    auto j = parse_module_output(data("module_k_h200.txt"), true);
    ASSERT_TRUE(j.ok()) << j.error().str();
    const auto& ks = (*j)["kernels"];
    ASSERT_EQ(ks.size(), 4u);
    EXPECT_EQ(ks[0]["key"], "cgl77scpkv");
    EXPECT_DOUBLE_EQ(ks[0]["gb_per_s"].get<double>(), 1846.08);
    EXPECT_EQ(ks[2]["shared_bytes"], 4096);
    EXPECT_DOUBLE_EQ(ks[3]["ms"].get<double>(), 0.007);
    EXPECT_EQ(ks[3]["regs"], 62);
}

TEST(InductorModule, SlowKernelsInRedAndLinesWithoutLauncherFactsParseToo) {
    // Inductor wraps slow kernels in ANSI red; without launcher facts the regs/spills part is absent.
    std::string out =
        "\x1b[31mmodel                RED c7qommo3bn 0.125ms    \t0.268 GB \t 2144.00GB/s   40 regs    0 spills        "
        " 0 shared mem\x1b[0m\n"
        "model                POI cx2mcfowsk 0.010ms    \t0.004 GB \t  400.00GB/s\n";
    auto j = parse_module_output(out, true);
    ASSERT_TRUE(j.ok()) << j.error().str();
    ASSERT_EQ((*j)["kernels"].size(), 2u);
    EXPECT_EQ((*j)["kernels"][0]["category"], "RED");
    EXPECT_DOUBLE_EQ((*j)["kernels"][0]["gb_per_s"].get<double>(), 2144.0);
    EXPECT_EQ((*j)["kernels"][0]["regs"], 40);
    EXPECT_EQ((*j)["kernels"][1]["key"], "cx2mcfowsk");
    EXPECT_FALSE((*j)["kernels"][1].contains("regs"));
}

TEST(InductorModule, KernelKeysAreNamedFromTheCache) {
    // Keys of two real kernel modules of the fixture cache, as -k prints them (first 10 characters).
    auto j = parse_module_output(
        "None RED c7qommo3bn 0.125ms 0.268 GB 2144.00GB/s\nNone POI cx2mcfowsk 0.010ms 0.004 GB 400.00GB/s\n"
        "None POI czzzzzzzzz 0.010ms 0.004 GB 400.00GB/s\n",
        true);
    ASSERT_TRUE(j.ok());
    name_kernels(*j, kiln::test::h100_root());
    EXPECT_EQ((*j)["kernels"][0]["name"], "triton_red_fused_sum_0");
    EXPECT_EQ((*j)["kernels"][1]["name"], "triton_poi_fused_add_cos_mul_relu_sin_0");
    EXPECT_NE(
        (*j)["kernels"][1]["module"].get<std::string>().find("cx2mcfowskhsfukpchpvwzumlft3pk2ehogyw3eyqjcqt4ousltq.py"),
        std::string::npos);
    EXPECT_EQ((*j)["kernels"][2]["name"], "czzzzzzzzz");  // not in the cache: the key stays
}

TEST(InductorModule, AModuleWithoutBenchmarkKernelsSaysHowToGetThem) {
    auto j = parse_module_output(
        "No kernel with benchmark functionality found. Make sure you run inductor with "
        "config.benchmark_kernel being True\n",
        true);
    ASSERT_FALSE(j.ok());
    EXPECT_NE(j.error().str().find("TORCHINDUCTOR_BENCHMARK_KERNEL=1"), std::string::npos) << j.error().str();
}

TEST(InductorModule, GraphTimeIsSecondsPerCall) {
    auto j = parse_module_output("0.000057\nPeak GPU memory usage 41.947 MB\n", false);
    ASSERT_TRUE(j.ok());
    EXPECT_NEAR((*j)["graph_ms"].get<double>(), 0.057, 1e-12);
    EXPECT_FALSE(parse_module_output("Peak GPU memory usage 41.947 MB\n", false).ok());
}
