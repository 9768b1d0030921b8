// The winner, runner-up and margin of an op, and parameters in the order a kernel engineer reads
// them, on the H100 fixture's real timing cache and on hand-made ops for the edge cases.
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "timings/collect.hpp"
#include "timings/ranking.hpp"

using namespace kiln::timings;

namespace {
Choice choice(const std::string& name, std::optional<double> ms) {
    Choice c;
    c.name = name;
    c.ms = ms;
    return c;
}
}  // namespace

TEST(Ranking, FixtureWinnerAndRunnerUp) {
    auto set = collect_timings({kiln::test::h100_root()});
    ASSERT_TRUE(set.ok()) << set.error().str();
    int mm = 0;
    for (const auto& op : set->ops) {
        if (op.op != "mm") continue;
        ++mm;
        auto r = rank_choices(op);
        ASSERT_NE(r.best, nullptr);
        ASSERT_NE(r.next, nullptr);
        EXPECT_EQ(r.best->name, op.best);
        for (const auto& c : op.choices)
            if (&c != r.best && c.ms) {
                EXPECT_LE(*r.next->ms, *c.ms) << c.name;
            }
        ASSERT_TRUE(r.margin_pct);
        EXPECT_GE(*r.margin_pct, 0.0);
        EXPECT_NEAR(*r.margin_pct, (*r.next->ms / *r.best->ms - 1) * 100, 1e-9);
    }
    EXPECT_EQ(mm, 2);
}

TEST(Ranking, NoTimesNoMarginAndSingleChoice) {
    Op op;
    op.choices = {choice("a", std::nullopt), choice("b", std::nullopt)};
    pick_best(op);
    auto r = rank_choices(op);
    EXPECT_EQ(r.best, nullptr);
    EXPECT_FALSE(r.margin_pct);
    op.choices = {choice("only", 0.5), choice("failed", std::nullopt)};
    pick_best(op);
    r = rank_choices(op);
    ASSERT_NE(r.best, nullptr);
    EXPECT_EQ(r.next, nullptr);  // a failed choice is no runner-up
    EXPECT_FALSE(r.margin_pct);
    op.choices = {choice("neg", -0.03), choice("pos", 0.01)};  // kernel_perf may be negative
    pick_best(op);
    r = rank_choices(op);
    ASSERT_NE(r.best, nullptr);
    EXPECT_EQ(r.best->name, "pos");  // an invalid time is flagged, never the winner (issue 18)
    EXPECT_EQ(r.next, nullptr);      // nor the runner-up
    EXPECT_FALSE(r.margin_pct);
}

TEST(Ranking, ParamsTileSizesWarpsStagesFirst) {
    auto params = nlohmann::ordered_json::parse(
        R"({"EVEN_K": true, "ACC_TYPE": "tl.float32", "num_stages": 3, "BLOCK_K": 32, "num_warps": 4,
            "BLOCK_N": 64, "GROUP_M": 8, "BLOCK_M": 128})");
    EXPECT_EQ(params_by_importance(params), (std::vector<std::string>{"BLOCK_M", "BLOCK_N", "BLOCK_K", "num_warps",
                                                                      "num_stages", "GROUP_M", "EVEN_K", "ACC_TYPE"}));
    EXPECT_EQ(params_text_by_importance(params),
              "BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=3, GROUP_M=8, EVEN_K=True, "
              "ACC_TYPE='tl.float32'");
    EXPECT_TRUE(params_by_importance(nlohmann::ordered_json::array()).empty());
    auto red = nlohmann::ordered_json::parse(R"({"num_warps": 8, "R0_BLOCK": 64, "XBLOCK": 1})");
    EXPECT_EQ(params_text_by_importance(red), "XBLOCK=1, R0_BLOCK=64, num_warps=8");
}
