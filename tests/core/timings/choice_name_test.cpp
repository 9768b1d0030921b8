// One name per choice (issue 33): torch's short name with the config that tells the op's choices
// apart, whatever source named it; the module hash kept as a detail.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "test_support.hpp"
#include "timings/choice_name.hpp"
#include "timings/collect.hpp"
#include "timings/compare.hpp"

using namespace kiln::timings;

namespace {
const nlohmann::ordered_json kTemplateParams = {{"EVEN_K", true}, {"USE_FAST_ACCUM", false}, {"ACC_TYPE", "tl.float32"},
                                                {"BLOCK_M", 64},  {"BLOCK_N", 128},          {"BLOCK_K", 64},
                                                {"GROUP_M", 8},   {"ALLOW_TF32", false},     {"num_stages", 4},
                                                {"num_warps", 8}};
}

TEST(ChoiceName, StderrNameWithConfig) {
    Choice c{"triton_mm_18", 0.01, kTemplateParams, "", ""};
    c.aliases = {"triton_mm-cq3rzxabcdefghijklmnop", "triton#4"};
    const ChoiceName n = choice_name(c);
    EXPECT_EQ(n.short_name, "triton_mm_18");
    EXPECT_EQ(n.config, "BLOCK 64\u00d7128\u00d764, 4 stages, 8 warps");
    EXPECT_EQ(n.display, "triton_mm_18 (BLOCK 64\u00d7128\u00d764, 4 stages, 8 warps)");
    EXPECT_EQ(n.hash, "cq3rzxabcdefghijklmnop");
}

TEST(ChoiceName, TimingCacheNameUsesTheTableNameOfItsAlias) {
    Choice c{"triton_mm-cq3rzxabcdefghijklmnop", 0.01, kTemplateParams, "", ""};
    EXPECT_EQ(choice_display_name(c), "triton_mm (BLOCK 64\u00d7128\u00d764, 4 stages, 8 warps)");
    c.aliases = {"triton#4", "triton_mm_18"};
    EXPECT_EQ(choice_display_name(c), "triton_mm_18 (BLOCK 64\u00d7128\u00d764, 4 stages, 8 warps)");
    EXPECT_EQ(choice_name(c).hash, "cq3rzxabcdefghijklmnop");
    // Without its config (no kernel module at hand), the module key tells it apart.
    Choice bare{"triton_mm-cq3rzxabcdefghijklmnop", 0.01, nlohmann::ordered_json::object(), "", ""};
    EXPECT_EQ(choice_display_name(bare), "triton_mm-cq3rzxab\u2026");
}

TEST(ChoiceName, ExternAndPointwise) {
    Choice ext{"mm-cqrjyn5jqdhj", 0.006, nlohmann::ordered_json::object(), "", ""};
    ext.aliases = {"cublas"};
    EXPECT_EQ(choice_display_name(ext), "mm");
    Choice mmlog{"cublas", 0.006, nlohmann::ordered_json::object(), "", ""};
    EXPECT_EQ(choice_display_name(mmlog), "cublas");
    EXPECT_EQ(config_summary({{"XBLOCK", 1024}, {"R0_BLOCK", 4}, {"num_warps", 1}, {"num_stages", 1}}),
              "XBLOCK 1024, R0_BLOCK 4, 1 stage, 1 warp");
    EXPECT_EQ(config_summary(nlohmann::ordered_json::object()), "");
}

// The real fixture: the timing cache (hash names) joined with the stderr table read beside it names
// every template choice by torch's short name and its config; alone, by the family and its config.
TEST(ChoiceName, FixtureChoicesAreNamedApart) {
    const auto h100 = kiln::test::fixture_dir() / "h100";
    auto joined = collect_timings({h100 / "inductor" / "cache", h100 / "stderr_cold.log"});
    ASSERT_TRUE(joined.ok()) << joined.error().str();
    int named = 0;
    for (const auto& op : joined->ops) {
        if (op.op != "mm") continue;
        std::set<std::string> seen;
        for (const auto& c : op.choices) {
            const std::string d = choice_display_name(c);
            EXPECT_TRUE(seen.insert(d).second) << "two choices read " << d;
            EXPECT_EQ(d.find("EVEN_K"), std::string::npos) << d;
            if (c.name.rfind("triton_mm_", 0) == 0) {
                EXPECT_EQ(d.rfind(c.name + " (BLOCK ", 0), 0u) << d;
                ++named;
            }
        }
    }
    EXPECT_GE(named, 18);  // torch prints the 10 fastest of each op (9 templates beside extern mm)
}

// Compare devices labels a choice the same on both devices although each numbers it differently.
TEST(ChoiceName, CompareLabelsAreOneNameOnEveryDevice) {
    Choice a{"triton_mm_4", 1.0, kTemplateParams, "", ""};
    Choice b{"triton_mm_61", 2.0, kTemplateParams, "", ""};
    Op x{"mm", "64x64 float16, 64x64 float16", "highest", "A", {a}, "triton_mm_4", "a", {}, {"64x64", "64x64"}};
    Op y{"mm", "64x64 float16, 64x64 float16", "highest", "B", {b}, "triton_mm_61", "b", {}, {"64x64", "64x64"}};
    auto cmp = compare_devices({{"A", {{}, {x}, {}}}, {"B", {{}, {y}, {}}}});
    ASSERT_EQ(cmp.ops.size(), 1u);
    ASSERT_EQ(cmp.ops[0].choices.size(), 1u);
    EXPECT_EQ(cmp.ops[0].choices[0].label, "triton_mm (BLOCK 64\u00d7128\u00d764, 4 stages, 8 warps)");
    EXPECT_EQ(winner_label(cmp.ops[0], 1), cmp.ops[0].choices[0].label);
}
