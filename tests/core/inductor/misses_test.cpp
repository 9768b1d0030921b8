// "Why did it miss": the `changed` run's miss must point at the pointwise graph's cold entry and
// name the two inductor configs the run changed.
#include <gtest/gtest.h>

#include "inductor/misses.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln::inductor;

TEST(Misses, ChangedRunPointsAtPointwiseEntry) {
    auto cached = load_keyed_entries(kiln::test::h100_root());
    ASSERT_TRUE(cached.ok()) << cached.error().str();
    EXPECT_EQ(cached->entries.size(), 13u);  // every fxgraph entry records its debug lines
    EXPECT_TRUE(cached->skipped.empty());
    auto events = read_trace_logs(kiln::test::fixture_dir() / "h100" / "trace" / "changed");
    ASSERT_TRUE(events.ok());
    const CacheEvent* miss = nullptr;
    for (const auto& e : *events)
        if (e.cache == "fx_graph" && e.state == "miss") miss = &e;
    ASSERT_NE(miss, nullptr);
    MissExplanation m = explain_miss(*miss, *cached);
    ASSERT_TRUE(m.closest_path.has_value()) << m.note;
    EXPECT_EQ(*m.closest_key, "fmo2n45uv3b62qq26v3dxc7irosaefewdkqwv5x66fwyzrtffovi");
    EXPECT_EQ(*m.closest_path,
              "fxgraph/mo/fmo2n45uv3b62qq26v3dxc7irosaefewdkqwv5x66fwyzrtffovi/"
              "gusz2kto372vz7hr6ujg6f6nrlassse4tjudf5uyhb23g56r2o5");
    ASSERT_EQ(m.diff.changed.size(), 2u);
    EXPECT_EQ(m.diff.changed[0].component, "inductor_config[realize_opcount_threshold]");
    EXPECT_EQ(m.diff.changed[1].component, "inductor_config[max_fusion_size]");
    EXPECT_TRUE(m.diff.only_a.empty() && m.diff.only_b.empty());
}

TEST(Misses, EveryColdMissFindsACandidate) {
    auto cached = load_keyed_entries(kiln::test::h100_root());
    ASSERT_TRUE(cached.ok());
    auto events = read_trace_logs(kiln::test::fixture_dir() / "h100" / "trace" / "cold");
    ASSERT_TRUE(events.ok());
    for (const auto& e : *events) {
        if (e.cache != "fx_graph") continue;
        MissExplanation m = explain_miss(e, *cached);
        ASSERT_TRUE(m.closest_key.has_value());
        EXPECT_NE(*m.closest_key, e.key);  // never the entry the miss itself wrote
        EXPECT_GT(m.diff.distance(), 0u);
    }
}

TEST(Misses, NothingToCompare) {
    CacheEvent e;
    e.key = "fx";
    MissExplanation none = explain_miss(e, KeyedEntries{});
    EXPECT_FALSE(none.closest_path.has_value());
    EXPECT_EQ(none.note, "the event records no key components");
    auto bad_root = load_keyed_entries(kiln::test::fixture_dir());
    ASSERT_FALSE(bad_root.ok());
    EXPECT_EQ(bad_root.error().code, kiln::Errc::not_found);
}

}  // namespace
