// kiln-cli timings on the fixture: JSON schema, bests, text table, exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

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

// Issue 18: the fixture's stderr table, timing cache and mm log are one autotuning: `timings` on the
// folder holding all three shows each choice once, with its three sources and names, and extern mm
// at the percentage torch logged (from unrounded times), not the 95.0 % its rounded ms would give.
TEST(CliTimings, JoinsSourcesIntoOneRowPerChoice) {
    const auto dir = kiln::test::fixture_dir() / "h100";
    auto r = run_command({kiln::test::cli_path(), "timings", dir.string(), "--json", "--op", "mm"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["ops"].size(), 2u);
    const auto& op = j["ops"][0];
    EXPECT_EQ(op["sources"].size(), 3u);
    bool found = false;
    for (const auto& c : op["choices"]) {
        if (c["choice"] != "triton_mm_18") continue;
        found = true;
        ASSERT_EQ(c["sources"].size(), 3u) << c.dump();
        EXPECT_EQ(c["sources"][0]["kind"], "timing_cache");
        EXPECT_EQ(c["sources"][1]["kind"], "mm_log");
        EXPECT_EQ(c["sources"][2]["kind"], "stderr_log");
        EXPECT_EQ(c["aliases"].size(), 2u);
        EXPECT_EQ(c["ms"], c["sources"][0]["ms"]);  // the unrounded time
    }
    EXPECT_TRUE(found) << op.dump();

    // The percentage torch printed for extern mm, read from the log itself.
    std::ifstream log(dir / "stderr_cold.log");
    std::string line, logged;
    std::smatch m;
    const std::regex mm_row(R"(^  mm [0-9.]+ ms ([0-9.]+%).*)");
    while (logged.empty() && std::getline(log, line))
        if (std::regex_match(line, m, mm_row)) logged = m[1];
    ASSERT_FALSE(logged.empty());
    auto text = run_command({kiln::test::cli_path(), "timings", dir.string(), "--op", "mm"});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    const std::regex shown(R"(\n    mm +0\.0061 ms +([0-9.]+%))");
    ASSERT_TRUE(std::regex_search(text.out, m, shown)) << text.out;
    EXPECT_EQ(m[1].str(), logged);
    EXPECT_NE(text.out.find("joined from"), std::string::npos);
}

// Issue 18: "used by graph": the choice `timings` marks for a graph entry is the autotune row that
// `show ENTRY --kernels` names for the template kernel the entry launches.
TEST(CliTimings, UsedByMatchesShowKernels) {
    const auto root = kiln::test::h100_root();
    auto r = run_command({kiln::test::cli_path(), "timings", root.string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    int marks = 0;
    for (const auto& op : j["ops"]) {
        for (const auto& c : op["choices"]) {
            for (const auto& key : c["used_by"]) {
                ++marks;
                const std::string k = key.get<std::string>();
                const auto dir = root / "fxgraph" / k.substr(1, 2) / k;
                auto show = run_command({kiln::test::cli_path(), "show", dir.string(), "--kernels", "--json"});
                ASSERT_EQ(show.exit_code, 0) << show.err;
                auto s = nlohmann::json::parse(show.out);
                std::vector<std::string> named, kernels;
                for (const auto& kern : s["kernels"])
                    if (kern["autotune"].is_object()) {
                        named.push_back(kern["autotune"]["choice"]);
                        kernels.push_back(kern["name"]);
                    }
                EXPECT_EQ(named, std::vector<std::string>{c["choice"].get<std::string>()}) << k;
                EXPECT_EQ(kernels, std::vector<std::string>{c["used_by_graphs"][0]["kernel"].get<std::string>()});
            }
        }
    }
    // The fixture's max-autotune mm graph (fej3ypleo5ccx...) runs a template: one mark at least.
    EXPECT_GE(marks, 1);
    auto text = run_command({kiln::test::cli_path(), "timings", root.string(), "--op", "mm"});
    EXPECT_NE(text.out.find("used by graph mm ("), std::string::npos) << text.out;
    auto skipped = run_command({kiln::test::cli_path(), "timings", root.string(), "--op", "mm", "--no-graphs"});
    EXPECT_EQ(skipped.out.find("used by graph"), std::string::npos);
}

// Two machines' stderr logs (an H100 and an H200 ran the same mm): the two headings of one op used to
// read alike, with neither the device nor the file; each now names its source, and says the log names
// no device rather than leaving it out.
TEST(CliTimings, SameOpFromTwoLogsHeadingsNameTheSource) {
    const auto h100 = (kiln::test::fixture_dir() / "h100" / "stderr_cold.log").string();
    const auto h200 = (kiln::test::fixture_dir() / "h100h200" / "h200" / "stderr_warm.log").string();
    auto r = run_command({kiln::test::cli_path(), "timings", h100, h200, "--top", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> headings;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("mm  512x512 float16, 512x512 float16", 0) == 0) headings.push_back(line);
    ASSERT_EQ(headings.size(), 2u) << r.out;
    EXPECT_NE(headings[0], headings[1]);
    EXPECT_NE(headings[0].find("from " + h100), std::string::npos) << headings[0];
    EXPECT_NE(headings[1].find("from " + h200), std::string::npos) << headings[1];
    for (const auto& h : headings) EXPECT_NE(h.find("on a device the file does not name"), std::string::npos) << h;
    // One source: the heading as before, no source or device note.
    auto one = run_command({kiln::test::cli_path(), "timings", h100, "--top", "1"});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_NE(one.out.find("mm  512x512 float16, 512x512 float16  (11 choices)\n"), std::string::npos) << one.out;
}
