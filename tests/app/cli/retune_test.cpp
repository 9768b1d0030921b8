// kiln-cli retune: the inventory (--list) on the fixtures, as text and as the JSON contract; a
// run where there is no GPU says so.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;
using kiln::test::run_command;

TEST(CliRetune, ListJsonResolvesEveryChoiceOfTheFixture) {
    auto r = run_command(
        {kiln::test::cli_path(), "retune", kiln::test::h100_root().string(), "--list", "--json", "--arch", "90"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["ops"].size(), 2u);
    EXPECT_FALSE(j.contains("devices"));  // an inventory measures nothing
    int triton = 0;
    for (const auto& op : j["ops"]) {
        EXPECT_EQ(op["op"], "mm");
        EXPECT_EQ(op["inputs"].get<std::string>().rfind("[('cuda', 'torch.float16', ", 0), 0u);
        EXPECT_EQ(op["recorded_for"]["device"], "NVIDIA H100 80GB HBM3");
        for (const auto& c : op["choices"]) {
            EXPECT_TRUE(c["runnable"].get<bool>()) << c["name"] << ": " << c["why"];
            EXPECT_TRUE(c["recorded_ms"].is_number());
            if (c["kind"] == "triton") {
                ++triton;
                EXPECT_EQ(c["name"].get<std::string>().rfind("triton_mm-c", 0), 0u);
                EXPECT_TRUE(fs::is_regular_file(c["binary"].get<std::string>()));
                EXPECT_TRUE(fs::is_regular_file(c["module"].get<std::string>()));
                EXPECT_EQ(c["grid"].size(), 3u);
                EXPECT_TRUE(c["config"].contains("BLOCK_K"));
            } else {
                EXPECT_EQ(c["kind"], "extern");
                EXPECT_EQ(c["name"].get<std::string>().rfind("mm-c", 0), 0u);
            }
        }
    }
    EXPECT_EQ(triton, 39);
}

TEST(CliRetune, ListTextSaysWhatRunsAndWhatCannot) {
    auto r =
        run_command({kiln::test::cli_path(), "retune", kiln::test::h100_root().string(), "--list", "--arch", "100"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("20 choices: 19 triton (0 with a binary), 1 extern, 0 other; 1 runnable"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("not runnable: no cubin for sm_100"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cublasGemmEx(N,N, m=256 n=1024 k=2048"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cuBLAS for extern choices:"), std::string::npos);
}

TEST(CliRetune, ARootWithoutTimingCacheIsBadInput) {
    kiln::test::ScratchDir dir("cli-retune-empty");
    auto r = run_command({kiln::test::cli_path(), "retune", dir.path().string(), "--list"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no timing cache"), std::string::npos) << r.err;
}

TEST(CliRetune, ARunWithoutAGpuSaysSo) {
    if (kiln::test::has_cuda_device()) GTEST_SKIP() << "this machine has a GPU: bench/gpu/retune_proof.sh runs it";
    auto r = run_command({kiln::test::cli_path(), "retune", kiln::test::h100_root().string()});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_TRUE(r.err.find("CUDA") != std::string::npos || r.err.find("cuInit") != std::string::npos) << r.err;
}
