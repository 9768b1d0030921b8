// Graph entries named from a TORCH_TRACE run (kiln-cli ls, the GUI browser's labels) on the fixtures.
#include <gtest/gtest.h>

#include "inductor/scanner.hpp"
#include "opened_dir.hpp"
#include "test_support.hpp"
#include "trace/graph_names.hpp"

namespace {

using namespace kiln::inductor;
using namespace kiln::trace;

TEST(GraphNames, TwoEntriesNamedFromTheTraceBesideTheRoot) {
    auto list = list_named_graphs(kiln::test::open_dir(kiln::test::two_entries_root()), std::nullopt);
    ASSERT_TRUE(list.ok()) << list.error().str();
    ASSERT_TRUE(list->trace.has_value());  // found: trace/ next to inductor/
    ASSERT_EQ(list->rows.size(), 4u);
    const GraphRow& fx = list->rows[0];
    EXPECT_EQ(fx.key, "fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh");
    EXPECT_EQ(fx.function, "pw");
    EXPECT_EQ(fx.line, 67);
    ASSERT_EQ(fx.symbols.size(), 1u);
    EXPECT_EQ(fx.symbols[0].name, "t0");
    EXPECT_EQ(fx.symbols[0].symbol, "s77");
    EXPECT_EQ(fx.symbols[0].source, "L['x'].size()[0]");
    EXPECT_EQ(fx.label(), "pw (gen_holdout.py:67) forward s77, float16[s77], float16[s77]");
    EXPECT_EQ(trace_beside(kiln::test::two_entries_root()), std::filesystem::path(*list->trace));
}

// The GUI's path: the named rows of the browser's scan are ls's rows of the root, in the same order.
TEST(GraphNames, FromAScanEqualsFromTheRoot) {
    for (const auto& root : {kiln::test::two_entries_root(), kiln::test::h100_root()}) {
        auto fromRoot = list_named_graphs(kiln::test::open_dir(root), std::nullopt);
        ASSERT_TRUE(fromRoot.ok()) << fromRoot.error().str();
        auto scan = scan_cache(root);
        ASSERT_TRUE(scan.ok());
        auto fromScan = list_named_graphs(*scan, std::nullopt);
        ASSERT_TRUE(fromScan.ok()) << fromScan.error().str();
        EXPECT_EQ(to_json(*fromRoot).dump(), to_json(*fromScan).dump()) << root;
        EXPECT_TRUE(fromScan->trace.has_value()) << root;
    }
}

// An explicit trace that is not there is an error; a trace that logged some graphs names only those.
TEST(GraphNames, ExplicitTrace) {
    auto list = list_named_graphs(kiln::test::open_dir(kiln::test::h100_root()),
                                  kiln::test::two_entries_root() / "missing-trace-dir");
    EXPECT_FALSE(list.ok());
    auto changed = list_named_graphs(kiln::test::open_dir(kiln::test::h100_root()),
                                     kiln::test::fixture_dir() / "h100/trace/changed");
    ASSERT_TRUE(changed.ok()) << changed.error().str();
    EXPECT_EQ(changed->rows.size(), 25u);  // 13 fxgraph + 12 aotautograd
    std::size_t named = 0;
    for (const auto& r : changed->rows) named += !r.function.empty();
    EXPECT_EQ(named, 2u);  // the changed run logged one graph: its fx and AOT entries
}

}  // namespace
