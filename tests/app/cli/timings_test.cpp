// kiln-cli timings on the fixture: JSON schema, bests, text table, exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

using kiln::test::run_command;

TEST(CliTimings, JsonOfCacheRoot) {
    auto r = run_command({kiln::test::cli_path(), "timings", kiln::test::h100_root().string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j["sources"].is_array());
    EXPECT_EQ(j["sources"].size(), 9u);  // 1 timing cache + 5 best_config + 3 kernel_perf
    int mm = 0;
    std::string first_best;
    for (const auto& op : j["ops"]) {
        if (op["op"] != "mm") continue;
        if (mm++ == 0) first_best = op["best"];
        EXPECT_EQ(op["device"], "NVIDIA H100 80GB HBM3");
        EXPECT_EQ(op["precision"], "highest");
        for (const auto& c : op["choices"]) {
            EXPECT_TRUE(c["ms"].is_number());
            EXPECT_TRUE(c["params"].is_object());
        }
    }
    EXPECT_EQ(mm, 2);
    EXPECT_EQ(first_best, "triton_mm-cy2dwohf74knmswzb73qaw4qclaosh4ozzvjns4nzoxgvhzcdqgh");
}

TEST(CliTimings, TextShowsWinnerAndParamsOfStderrLog) {
    auto r = run_command({kiln::test::cli_path(), "timings",
                          (kiln::test::fixture_dir() / "h100" / "stderr_cold.log").string(), "--top", "3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("mm  512x512 float16, 512x512 float16"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("* triton_mm_4"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("100.0%"), std::string::npos);
    EXPECT_NE(r.out.find("BLOCK_M=64"), std::string::npos);
    EXPECT_NE(r.out.find("more (--top 0 shows all)"), std::string::npos);
}

TEST(CliTimings, MmLogFilterAndBadInput) {
    auto r = run_command({kiln::test::cli_path(), "timings",
                          (kiln::test::fixture_dir() / "h100" / "mm_log.json").string(), "--json", "--op", "mm"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["ops"].size(), 2u);
    EXPECT_EQ(j["sources"][0]["kind"], "mm_log");

    auto missing = run_command({kiln::test::cli_path(), "timings", "/no/such/path"});
    EXPECT_EQ(missing.exit_code, 2);
    auto unknown =
        run_command({kiln::test::cli_path(), "timings", (kiln::test::fixture_dir() / "h100" / "gpu.txt").string()});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.err.find("not a timing file"), std::string::npos) << unknown.err;
}

// .best_config files are per-kernel configs (their own group), never a failed choice; the negative
// .kernel_perf (-0.0309 ms, a mutated-input kernel) is flagged and never the best.
TEST(CliTimings, BestConfigsAndInvalidTimes) {
    auto r = run_command({kiln::test::cli_path(), "timings", kiln::test::h100_root().string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    int configs = 0, negative = 0;
    for (const auto& op : j["ops"]) {
        if (op["op"] == "best_config") {
            ++configs;
            EXPECT_EQ(op["best"], "");  // nothing was benchmarked against it
        }
        for (const auto& c : op["choices"]) {
            if (c["ms"].is_number() && c["ms"].get<double>() < 0) {
                ++negative;
                EXPECT_NE(op["best"], c["name"]);
            }
        }
    }
    EXPECT_EQ(configs, 5);
    EXPECT_EQ(negative, 1);
    r = run_command({kiln::test::cli_path(), "timings", kiln::test::h100_root().string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find("failed:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("per-kernel configs"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("XBLOCK=4, R0_BLOCK=2048, num_warps=8, num_stages=1  (by coordinate descent"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("-0.0309 ms  invalid (negative time"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("* cbcrmd5sovlo"), std::string::npos) << r.out;
}

// With no path, the default cache root, as `stats` finds it.
TEST(CliTimings, DefaultRoot) {
    auto r = run_command({"/usr/bin/env", "TORCHINDUCTOR_CACHE_DIR=" + kiln::test::h100_root().string(),
                          kiln::test::cli_path(), "timings", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["sources"].size(), 9u);
}
