// Numerics or speed: the rules of rank_effects.hpp on hand-made configs.
#include <gtest/gtest.h>

#include "ranks/rank_effects.hpp"

using namespace kiln::ranks;
using Json = nlohmann::ordered_json;

namespace {

Json tile(int m, int n, int k, int stages, int warps) {
    return Json{{"BLOCK_M", m}, {"BLOCK_N", n}, {"BLOCK_K", k}, {"num_stages", stages}, {"num_warps", warps}};
}

}  // namespace

TEST(RankEffects, BlockKChangesNumericsStagesAndWarpsOnlySpeed) {
    ChoiceConfig a{"triton_mm", tile(64, 32, 32, 5, 8), true};
    ChoiceConfig k{"triton_mm", tile(64, 32, 128, 5, 8), true};
    ChoiceConfig s{"triton_mm", tile(64, 32, 32, 3, 4), true};
    ChoiceConfig mn{"triton_mm", tile(128, 64, 32, 5, 8), true};
    EXPECT_EQ(choice_effect(a, k).effect, Effect::numerics);
    EXPECT_NE(choice_effect(a, k).why.find("BLOCK_K 32 vs 128"), std::string::npos);
    EXPECT_EQ(choice_effect(a, s).effect, Effect::speed);
    EXPECT_EQ(choice_effect(a, mn).effect, Effect::speed);
    EXPECT_EQ(choice_effect(a, a).effect, Effect::none);
    EXPECT_EQ(choices_effect({a, s, k}).effect, Effect::numerics);
}

TEST(RankEffects, AnotherFamilyOrAnUnknownConfig) {
    ChoiceConfig cublas{"mm", Json::object(), true};
    ChoiceConfig tri{"triton_mm", tile(64, 32, 32, 5, 8), true};
    ChoiceConfig unknown{"triton_mm", Json::object(), false};
    EXPECT_EQ(choice_effect(cublas, tri).effect, Effect::numerics);
    EXPECT_NE(choice_effect(cublas, tri).why.find("another algorithm"), std::string::npos);
    EXPECT_EQ(choice_effect(tri, unknown).effect, Effect::maybe_numerics);
    Json split = tile(64, 32, 32, 5, 8);
    split["SPLIT_K"] = 4;
    EXPECT_EQ(choice_effect(tri, {"triton_mm", split, true}).effect, Effect::numerics);
}

TEST(RankEffects, KernelConfigs) {
    Json red{{"XBLOCK", 8}, {"R0_BLOCK", 16}, {"num_warps", 4}, {"num_stages", 1}};
    Json red2 = red;
    red2["R0_BLOCK"] = 32;
    EXPECT_EQ(kernel_config_effect(red, red2).effect, Effect::numerics);
    Json st = red;
    st["num_stages"] = 2;
    EXPECT_EQ(kernel_config_effect(red, st).effect, Effect::speed);
    Json w = red;
    w["num_warps"] = 8;
    EXPECT_EQ(kernel_config_effect(red, w).effect, Effect::maybe_numerics);
    Json tile2d{{"XBLOCK", 32}, {"YBLOCK", 32}, {"num_warps", 4}};
    Json tile2d_b{{"XBLOCK", 32}, {"YBLOCK", 64}, {"num_warps", 8}};
    EXPECT_EQ(kernel_config_effect(tile2d, tile2d_b).effect, Effect::speed);
}

TEST(RankEffects, DeviceIndexIsNormalised) {
    std::string a =
        "    with torch.cuda._DeviceGuard(0):\n        torch.cuda.set_device(0)\n"
        "        stream0 = get_raw_stream(0)\n        k.run(x, stream=stream0)\n"
        "# kernel path: /tmp/r/rank0/inductor/ab/cab.py\n"
        "x = rand_strided((), (), device='cuda:0')  # DeviceProperties(type='cuda', index=0, cc=90)\n";
    std::string b =
        "    with torch.cuda._DeviceGuard(1):\n        torch.cuda.set_device(1)\n"
        "        stream1 = get_raw_stream(1)\n        k.run(x, stream=stream1)\n"
        "# kernel path: /tmp/r/rank1/inductor/cd/ccd.py\n"
        "x = rand_strided((), (), device='cuda:1')  # DeviceProperties(type='cuda', index=1, cc=90)\n";
    EXPECT_NE(a, b);
    EXPECT_EQ(normalize_device_index(a), normalize_device_index(b));
    // Numbers that are not device indices stay.
    EXPECT_EQ(normalize_device_index("xindex = 12\nupstream3 = 1\nbuf10"), "xindex = 12\nupstream3 = 1\nbuf10");
    EXPECT_NE(normalize_device_index("all_reduce(x, 'sum', '0')"), normalize_device_index("all_reduce(x, 'sum', '1')"));
}
