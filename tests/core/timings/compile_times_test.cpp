// Compile times of the fixture's graphs against Python's own reading (golden.json).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "timings/compile_times.hpp"

using namespace kiln::timings;

TEST(CompileTimes, MatchGoldenTimeTakenNs) {
    auto golden = nlohmann::json::parse(kiln::test::read_file(kiln::test::fixture_dir() / "h100" / "golden.json"));
    std::map<std::string, std::int64_t> expected;
    for (const auto& e : golden["entries"])
        if (e.contains("_time_taken_ns") && e["_time_taken_ns"].is_number())  // AOT entries have none
            expected[e["path"].get<std::string>()] = e["_time_taken_ns"].get<std::int64_t>();
    ASSERT_EQ(expected.size(), 13u);

    auto root = kiln::test::h100_root();
    auto ct = read_compile_times(root);
    ASSERT_TRUE(ct.ok()) << ct.error().str();
    EXPECT_TRUE(ct->errors.empty()) << ct->errors.front();
    ASSERT_EQ(ct->graphs.size(), expected.size());
    for (const auto& g : ct->graphs) {
        auto rel = std::filesystem::relative(g.path, root).generic_string();
        ASSERT_TRUE(expected.count(rel)) << rel;
        EXPECT_EQ(g.ns, expected[rel]) << rel;
    }
    std::map<std::string, std::uint64_t> files;
    for (const auto& c : ct->categories) files[c.category] = c.files;
    EXPECT_EQ(files["fxgraph"], 13u);  // shared/fixtures/README.md counts
    EXPECT_EQ(files["triton_compiled"], 905u);
    EXPECT_EQ(files["best_config"], 5u);
}

TEST(CompileTimes, LogHistogramCoversEveryGraph) {
    std::vector<GraphCompileTime> g{{"a", 2'000'000}, {"b", 250'000'000}, {"c", 47'000'000'000}, {"d", 260'000'000}};
    auto bins = log_histogram(g);
    int total = 0;
    for (const auto& b : bins) total += b.count;
    EXPECT_EQ(total, 4);
    EXPECT_LE(bins.front().lo_s, 0.002);
    EXPECT_GT(bins.back().hi_s, 47.0);
    for (size_t i = 1; i < bins.size(); ++i) EXPECT_DOUBLE_EQ(bins[i].lo_s, bins[i - 1].hi_s);
    EXPECT_TRUE(log_histogram({}).empty());
}
