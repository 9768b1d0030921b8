// kiln-cli misses on the fixture's TORCH_TRACE logs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "test_support.hpp"

namespace {

using kiln::test::run_command;
using nlohmann::json;

std::string trace(const char* run) { return (kiln::test::fixture_dir() / "h100/trace" / run).string(); }

TEST(CliMisses, ChangedRunNamesTheTwoConfigs) {
    auto r = run_command(
        {kiln::test::cli_path(), "misses", trace("changed"), "--root", kiln::test::h100_root().string(), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = json::parse(r.out);
    ASSERT_EQ(j["events"].size(), 1u);
    const auto& e = j["events"][0];
    EXPECT_EQ(e["state"], "miss");
    EXPECT_EQ(e["compile_id"], "0/0");
    EXPECT_EQ(e["key"], "fbthtgcfn6jl7ghas2zkbej2nhbianoo76mqbeuwqawaoxcxbhv5");
    EXPECT_EQ(e["time"], "1126 01:17:33.288000");
    EXPECT_EQ(e["closest"]["key"], "fmo2n45uv3b62qq26v3dxc7irosaefewdkqwv5x66fwyzrtffovi");
    EXPECT_EQ(e["closest"]["entry"].get<std::string>().rfind("fxgraph/mo/fmo2n45uv3b6", 0), 0u);
    EXPECT_EQ(e["closest"]["differing"],
              json::parse(R"(["inductor_config[realize_opcount_threshold]", "inductor_config[max_fusion_size]"])"));
    EXPECT_EQ(j["entries_compared"], 13);
}

TEST(CliMisses, WarmRunListsHits) {
    auto r = run_command({kiln::test::cli_path(), "misses", trace("warm"), "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = json::parse(r.out);
    ASSERT_EQ(j["events"].size(), 6u);
    for (const auto& e : j["events"]) {
        EXPECT_EQ(e["state"], "hit");
        EXPECT_FALSE(e.contains("closest"));
        EXPECT_TRUE(e["time_saved_ns"].is_number());
    }
}

TEST(CliMisses, TextOutput) {
    auto r =
        run_command({kiln::test::cli_path(), "misses", trace("changed"), "--root", kiln::test::h100_root().string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("1 fx_graph cache events, 1 misses"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("inductor_config[max_fusion_size]: "), std::string::npos) << r.out;
}

TEST(CliMisses, BadInput) {
    auto r = run_command({kiln::test::cli_path(), "misses", "/nonexistent.log"});
    EXPECT_EQ(r.exit_code, 2);
    r = run_command({kiln::test::cli_path(), "misses", trace("changed"), "--root", kiln::test::fixture_dir().string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no fxgraph/ directory"), std::string::npos) << r.err;
}

}  // namespace

// Issue 16.6: a TORCH_TRACE record whose JSON nests 100000 deep is an error naming the log and line
// (every reader walks that JSON recursively), never a crash; `diff` and `timeline` read it the same way.
TEST(CliMisses, DeeplyNestedRecordIsAnErrorNamingTheLine) {
    kiln::test::ScratchDir dir("cli-misses-deep");
    const auto log = dir.path() / "dedicated_log_torch_trace_x.log";
    std::ofstream(log) << "V1126 01:17:33.288000 1311 torch/_dynamo/convert_frame.py:1] {\"dynamo_start\": {}}\n"
                       << "V1126 01:17:34.288000 1311 torch/_inductor/codecache.py:2] {\"a\": "
                       << std::string(100000, '[') << "\n";
    for (const char* cmd : {"misses", "diff"}) {
        std::vector<std::string> argv{kiln::test::cli_path(), cmd, log.string()};
        if (std::string(cmd) == "diff") argv.push_back(log.string());
        auto r = kiln::test::run_command(argv);
        EXPECT_EQ(r.exit_code, 1) << cmd << ": " << r.err;
        EXPECT_NE(r.err.find(log.string() + ":2"), std::string::npos) << cmd << ": " << r.err;
        EXPECT_NE(r.err.find("nested deeper than"), std::string::npos) << cmd << ": " << r.err;
    }
}
