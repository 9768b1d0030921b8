// "Why did it miss": the `changed` run's miss must point at the pointwise graph's cold entry and
// name the two inductor configs the run changed.
#include <gtest/gtest.h>

#include "opened_dir.hpp"
#include "test_support.hpp"
#include "trace/misses.hpp"

namespace {

using namespace kiln::trace;

TEST(Misses, ChangedRunPointsAtPointwiseEntry) {
    auto cached = load_keyed_entries(kiln::test::open_dir(kiln::test::h100_root()));
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

// A key miss is compared only with entries written before it: the cold run's first miss found an
// empty cache, every later one an entry of an earlier scenario.
TEST(Misses, ColdMissesCompareWithOlderEntriesOnly) {
    auto cached = load_keyed_entries(kiln::test::open_dir(kiln::test::h100_root()));
    ASSERT_TRUE(cached.ok());
    auto events = read_trace_logs(kiln::test::fixture_dir() / "h100" / "trace" / "cold");
    ASSERT_TRUE(events.ok());
    std::size_t compared = 0, first = 0;
    for (const auto& e : *events) {
        if (e.cache != "fx_graph") continue;
        ASSERT_EQ(miss_class(e), "key miss");
        ASSERT_TRUE(e.event_time_ns.has_value());
        MissExplanation m = explain_miss(e, *cached);
        if (!m.closest_key) {
            ++first;
            EXPECT_EQ(m.note, "no entry under another key written before this miss");
            continue;
        }
        ++compared;
        EXPECT_NE(*m.closest_key, e.key);  // never the entry the miss itself wrote
        EXPECT_GT(m.diff.distance(), 0u);
        for (const auto& c : cached->entries) {
            if (c.path == *m.closest_path) {
                EXPECT_LT(*c.mtime_ns, *e.event_time_ns);
            }
        }
    }
    EXPECT_EQ(first, 1u);
    EXPECT_EQ(compared, 11u);
}

// The two-entries fixture's second process: the guards of the key's entries evaluated with the
// trace's value of s77.
TEST(Misses, GuardMissEvaluatesTheSameKeyOnly) {
    const auto two = kiln::test::two_entries_root();
    auto run = read_trace_run(two.parent_path() / "trace" / "huge");
    ASSERT_TRUE(run.ok()) << run.error().str();
    const CacheEvent* fx = nullptr;
    for (const auto& e : run->events)
        if (e.cache == "fx_graph") fx = &e;
    ASSERT_NE(fx, nullptr);
    EXPECT_EQ(miss_class(*fx), "guard miss");
    EXPECT_EQ(fx->guard_expr, "2 <= L['t0'] and L['t0'] <= 2147483647");
    ASSERT_TRUE(fx->compile.has_value());
    GuardMissExplanation g = explain_guard_miss(*fx, &run->compiles[*fx->compile], kiln::test::open_dir(two));
    EXPECT_TRUE(g.note.empty()) << g.note;
    EXPECT_EQ(g.key_dir, "fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh");
    ASSERT_EQ(g.symbols.size(), 1u);
    EXPECT_EQ(g.symbols[0].value, 2147483664LL);
    ASSERT_EQ(g.entries.size(), 2u);
    EXPECT_EQ(g.entries[0].check.failing, "L['t0'] <= 2147483647 (L['t0'] = 2147483664)");
    EXPECT_TRUE(g.entries[1].check.pass);
    EXPECT_TRUE(g.entries[1].written_after);
    // Without the compile (no create_symbol values) nothing is evaluated, and it says why.
    GuardMissExplanation none = explain_guard_miss(*fx, nullptr, kiln::test::open_dir(two));
    EXPECT_TRUE(none.entries.empty());
    EXPECT_FALSE(none.note.empty());
}

TEST(Misses, NothingToCompare) {
    CacheEvent e;
    e.key = "fx";
    MissExplanation none = explain_miss(e, KeyedEntries{});
    EXPECT_FALSE(none.closest_path.has_value());
    EXPECT_EQ(none.note, "the event records no key components");
    auto bad_root = load_keyed_entries(kiln::test::open_dir(kiln::test::fixture_dir()));
    ASSERT_FALSE(bad_root.ok());
    EXPECT_EQ(bad_root.error().code, kiln::Errc::not_found);
}

}  // namespace
