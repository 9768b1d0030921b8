// Device comparison on the fixture's timing cache and a second "machine" derived from it.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_support.hpp"
#include "timings/compare.hpp"
#include "timings/timing_cache_source.hpp"
#include "util/python_json.hpp"

namespace fs = std::filesystem;
using namespace kiln::timings;

namespace {

std::string fixture_cache_text() {
    for (const auto& e : fs::directory_iterator(kiln::test::h100_root() / "cache"))
        return kiln::test::read_file(e.path());
    return {};
}

DeviceTimings device_from(const std::string& text, const std::string& label) {
    auto f = parse_timing_cache(text, label, kiln::test::h100_root());
    EXPECT_TRUE(f.ok());
    DeviceTimings d{label, {}};
    if (f.ok()) d.set.ops = f->ops;
    return d;
}

}  // namespace

TEST(Compare, IdentityIgnoresModuleHashAndIndex) {
    Choice a{"triton_mm-cabc", 1.0, nlohmann::ordered_json({{"BLOCK_M", 64}, {"num_warps", 4}}), "", ""};
    Choice b{"triton_mm_7", 2.0, nlohmann::ordered_json({{"BLOCK_M", 64}, {"num_warps", 4}}), "", ""};
    Choice ext{"mm-cqrj", 1.0, nlohmann::ordered_json::object(), "", ""};
    EXPECT_EQ(choice_identity(a), "triton_mm(BLOCK_M=64, num_warps=4)");
    EXPECT_EQ(choice_identity(a), choice_identity(b));
    EXPECT_EQ(choice_identity(ext), "mm");
}

TEST(Compare, SpeedupAndWinnerDiffers) {
    std::string text = fixture_cache_text();
    auto j = kiln::py_loads(text).value();
    // "Machine B": everything twice as slow, except that for the 512 shape the extern mm is now
    // the fastest, so the winner differs there and not for the other shape (mm wins both).
    j["system"]["device"]["name"] = "Other GPU";
    for (auto& [inputs, by_precision] : j["cache"]["mm"].items())
        for (auto& [precision, choices] : by_precision.items())
            for (auto& [name, ms] : choices.items()) ms = ms.get<double>() * 2;
    auto& small = j["cache"]["mm"].begin().value()["highest"];
    small["mm-cqrjyn5jqdhj5q3lohxxeq3fxnpvy6qsigzdm2ykqas7fpkl7zrz"] = 0.001;

    auto cmp = compare_devices({device_from(text, "H100"), device_from(j.dump(), "Other GPU")});
    ASSERT_EQ(cmp.devices.size(), 2u);
    ASSERT_EQ(cmp.ops.size(), 2u);
    const ComparedOp& a = cmp.ops[0];
    EXPECT_TRUE(a.winner_differs);
    EXPECT_EQ(a.best[1], "mm");
    EXPECT_NE(a.best[0].find("BLOCK_M=64"), std::string::npos) << a.best[0];
    EXPECT_NEAR(*a.speedup[1], 0.005791999865323305 / 0.001, 1e-9);
    EXPECT_DOUBLE_EQ(*a.speedup[0], 1.0);
    EXPECT_EQ(a.choices.size(), 20u);  // every choice matched across the two files
    for (const auto& c : a.choices) EXPECT_TRUE(c.ms[0] && c.ms[1]) << c.identity;
    const ComparedOp& b = cmp.ops[1];
    EXPECT_FALSE(b.winner_differs);
    EXPECT_NEAR(*b.speedup[1], 0.5, 1e-12);
    // Sorted by the first device's time: the winner first.
    EXPECT_EQ(b.choices.front().identity, "mm");
}

TEST(Compare, OpsOnOneDeviceOnlyAreLeftOut) {
    std::string text = fixture_cache_text();
    DeviceTimings other{"empty", {}};
    auto cmp = compare_devices({device_from(text, "H100"), other});
    EXPECT_TRUE(cmp.ops.empty());
}
