// kiln-cli ranks on the real 4-rank H100 job, as a user runs it: the report, its JSON, a missing
// rank, usage errors, and --agree --write on copies of the ranks.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace kiln::test;

namespace {

std::vector<std::string> ranks_args(const fs::path& base, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv{cli_path(), "ranks"};
    for (int r = 0; r < 4; ++r) argv.push_back((base / ("rank" + std::to_string(r))).string());
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
}

fs::path fixture_ranks() { return fixture_dir() / "ranks"; }

}  // namespace

TEST(RanksCli, HeadlineThenEachOpsWinnersAndTimes) {
    auto r = run_command(ranks_args(fixture_ranks()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "ranks disagree on 10 of 16 autotuned ops");
    EXPECT_NE(r.out.find("autotuned ops: 10 of 16 differ"), std::string::npos);
    // An op: its inputs and strides, then one row per competing choice with each rank's time.
    EXPECT_NE(r.out.find("bmm(24x256x256 bfloat16 strides 65536x1x256, 24x256x64 bfloat16)  strides [65536, 1, 256], "
                         "[16384, 64, 1]"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("  triton_bmm (BLOCK 64×64×128, 4 stages, 4 warps)      *   0.0076     0.0077     0.0079     "
                         "0.0077\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("speed only: num_stages 4 vs 5 only"), std::string::npos);
    EXPECT_NE(r.out.find("changes numerics: another algorithm: mm vs triton_mm"), std::string::npos);
    EXPECT_NE(r.out.find(".best_config: 7 of 7 candidate sets differ"), std::string::npos);
    EXPECT_NE(r.out.find("graph keys: 5 of 5 differ"), std::string::npos);
    EXPECT_NE(r.out.find("output code ['1_inference']: device index only"), std::string::npos);
}

TEST(RanksCli, JsonIsTheCoreReport) {
    auto r = run_command(ranks_args(fixture_ranks(), {"--json"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["ops_compared"], 16);
    EXPECT_EQ(j["ops_differ"], 10);
    ASSERT_EQ(j["groups"].size(), 1u);
    const auto& ops = j["groups"][0]["ops"];
    EXPECT_EQ(ops["differ_count"], 10);
    for (const auto& d : ops["differ"]) {
        EXPECT_EQ(d["winner"].size(), 4u);
        for (const auto& c : d["competing"]) EXPECT_EQ(c["ms"].size(), 4u);
        EXPECT_TRUE(d["effect"]["effect"].is_string());
    }
    EXPECT_FALSE(j.contains("agreements"));
}

TEST(RanksCli, AMissingRankIsNamedAndTheRestCompared) {
    ScratchDir d("cli-ranks-missing");
    auto argv = ranks_args(fixture_ranks());
    argv.push_back((d.path() / "rank7").string());
    auto r = run_command(argv);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("rank not compared: "), std::string::npos);
    EXPECT_NE(r.err.find("rank7: no such rank folder"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "ranks disagree on 10 of 16 autotuned ops");
}

TEST(RanksCli, UsageErrors) {
    auto one = run_command({cli_path(), "ranks", (fixture_ranks() / "rank0").string()});
    EXPECT_EQ(one.exit_code, 2);
    EXPECT_NE(one.err.find("need two readable ranks"), std::string::npos) << one.err;
    auto write = run_command(ranks_args(fixture_ranks(), {"--write"}));
    EXPECT_EQ(write.exit_code, 2);
    EXPECT_NE(write.err.find("add --agree"), std::string::npos) << write.err;
    auto rule = run_command(ranks_args(fixture_ranks(), {"--agree", "--rule", "fastest"}));
    EXPECT_EQ(rule.exit_code, 2);
}

TEST(RanksCli, AgreeWriteMakesEveryRankRunTheSameChoice) {
    ScratchDir d("cli-ranks-agree");
    for (int r = 0; r < 4; ++r)
        fs::copy(fixture_ranks() / ("rank" + std::to_string(r)), d.path() / ("rank" + std::to_string(r)),
                 fs::copy_options::recursive);
    auto w = run_command(ranks_args(d.path(), {"--agree", "--write"}));
    ASSERT_EQ(w.exit_code, 0) << w.err;
    EXPECT_NE(w.out.find("rule: the choice with the smallest median of the ranks' measured times"), std::string::npos);
    EXPECT_NE(w.out.find("10 op(s) need a rank's timing cache changed"), std::string::npos) << w.out;
    EXPECT_NE(w.out.find("wrote " + (d.path() / "rank1" / "inductor" / "cache").string()), std::string::npos);
    auto after = run_command(ranks_args(d.path()));
    ASSERT_EQ(after.exit_code, 0) << after.err;
    EXPECT_EQ(after.out.substr(0, after.out.find('\n')), "ranks agree on all 16 autotuned ops");
    // The JSON of --agree says what was written, rank by rank.
    auto again = run_command(ranks_args(d.path(), {"--agree", "--json", "--rule", "majority"}));
    ASSERT_EQ(again.exit_code, 0) << again.err;
    auto j = nlohmann::json::parse(again.out);
    ASSERT_EQ(j["agreements"].size(), 1u);
    EXPECT_EQ(j["agreements"][0]["rule"], "majority");
    EXPECT_EQ(j["agreements"][0]["to_write"], 0);
}
