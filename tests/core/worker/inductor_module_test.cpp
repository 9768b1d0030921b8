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

// env-trace §3.1's real H100 outputs, every form (data/README.md).
TEST(InductorModule, WholeGraphKeepsPeakMemory) {
    auto j = parse_module_output(data("module_graph_h100.txt"), false);
    ASSERT_TRUE(j.ok()) << j.error().str();
    EXPECT_NEAR((*j)["graph_ms"].get<double>(), 0.022, 1e-12);
    EXPECT_DOUBLE_EQ((*j)["peak_gpu_mb"].get<double>(), 0.002);
}

TEST(InductorModule, PerKernelH100Lines) {
    auto j = parse_module_output(data("module_k_h100.txt"), true);
    ASSERT_TRUE(j.ok()) << j.error().str();
    const auto& ks = (*j)["kernels"];
    ASSERT_EQ(ks.size(), 4u);
    EXPECT_EQ(ks[1]["key"], "cj6cz3ru7e");
    EXPECT_EQ(ks[1]["shared_bytes"], 73728);
    EXPECT_EQ(ks[2]["spills"], 8);
    EXPECT_DOUBLE_EQ(ks[3]["gb_per_s"].get<double>(), 0.01);
}

TEST(InductorModule, PerKernelAllConfigs) {
    auto j = parse_module_output(data("module_k_c_h100.txt"), true);
    ASSERT_TRUE(j.ok()) << j.error().str();
    const auto& ks = (*j)["kernels"];
    ASSERT_EQ(ks.size(), 2u);
    EXPECT_EQ(ks[0]["key"], "cd3mecl7vn");
    EXPECT_DOUBLE_EQ(ks[0]["ms"].get<double>(), 0.005);
    ASSERT_EQ(ks[0]["configs"].size(), 1u);
    EXPECT_EQ(ks[0]["configs"][0]["config"], "XBLOCK: 2, num_warps: 4, num_ctas: 1, num_stages: 1, maxnreg: None");
    EXPECT_DOUBLE_EQ(ks[1]["configs"][0]["gb_per_s"].get<double>(), 227.56);
}

// The failure: a kernel module run on its own printed this and Kiln said "no graph timing".
TEST(InductorModule, KernelModuleLine) {
    for (bool per_kernel : {false, true}) {
        auto j = parse_module_output(data("kernel_module_h100.txt"), per_kernel);
        ASSERT_TRUE(j.ok()) << j.error().str();
        EXPECT_EQ((*j)["form"], "kernel_module");
        ASSERT_EQ((*j)["kernels"].size(), 1u);
        EXPECT_DOUBLE_EQ((*j)["kernels"][0]["ms"].get<double>(), 0.006);
        EXPECT_DOUBLE_EQ((*j)["kernels"][0]["gb_per_s"].get<double>(), 1105.08);
    }
}

TEST(InductorModule, InfNanBandwidthAndNoBenchmarkKernels) {
    auto j = parse_module_output(
        "\x1b[31mNone                 UNK cgzeniyiik 0.000ms    \t0.000 GB \t     infGB/s\x1b[39m\n"
        "None                 UNK cd3mecl7vn 0.005ms    \t0.000 GB \t     nanGB/s\n",
        true);
    ASSERT_TRUE(j.ok()) << j.error().str();
    ASSERT_EQ((*j)["kernels"].size(), 2u);
    EXPECT_TRUE((*j)["kernels"][0]["gb_per_s"].is_null());
    EXPECT_EQ((*j)["kernels"][0]["gb_per_s_text"], "inf");
    EXPECT_EQ((*j)["kernels"][1]["gb_per_s_text"], "nan");
    auto none = parse_module_output(data("module_k_no_benchmark_kernels.txt"), true);
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().message.find("not compiled with benchmark_kernel=True"), std::string::npos)
        << none.error().str();
}
