// Graph entries by name (kiln-cli ls, the GUI browser's labels) on the fixtures.
#include <gtest/gtest.h>

#include "inductor/graph_list.hpp"
#include "inductor/scanner.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln::inductor;

TEST(GraphList, TwoEntriesNamedFromTheTraceBesideTheRoot) {
    auto list = list_graphs(kiln::test::two_entries_root(), std::nullopt);
    ASSERT_TRUE(list.ok()) << list.error().str();
    ASSERT_TRUE(list->trace.has_value());  // found: trace/ next to inductor/
    ASSERT_EQ(list->rows.size(), 4u);
    const GraphRow& fx = list->rows[0];
    EXPECT_EQ(fx.kind, "fxgraph");
    EXPECT_EQ(fx.key, "fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh");
    EXPECT_EQ(fx.guards, "2 <= L['t0'] and L['t0'] <= 2147483647");
    EXPECT_EQ(fx.compile_ns, 270978305);
    EXPECT_EQ(fx.function, "pw");
    EXPECT_EQ(fx.line, 67);
    ASSERT_EQ(fx.symbols.size(), 1u);
    EXPECT_EQ(fx.symbols[0].name, "t0");
    EXPECT_EQ(fx.symbols[0].symbol, "s77");
    EXPECT_EQ(fx.symbols[0].source, "L['x'].size()[0]");
    ASSERT_EQ(fx.inputs.size(), 3u);
    EXPECT_EQ(fx.inputs[0].text, "s77");
    EXPECT_EQ(fx.inputs[1].text, "float16[s77] cuda:0");
    EXPECT_EQ(fx.role, "forward");
    EXPECT_EQ(fx.used_by, std::vector<std::string>{"a4pxxvose2w4y3ecq3az3lst3awwzfpllzkollbqxqbiafz7ni2c"});
    EXPECT_EQ(fx.label(), "pw (gen_holdout.py:67) forward s77, float16[s77], float16[s77]");
    const GraphRow& aot = list->rows[2];
    EXPECT_EQ(aot.kind, "aotautograd");
    EXPECT_EQ(aot.forward_key, fx.key);
    EXPECT_FALSE(aot.backward_key.has_value());
    EXPECT_TRUE(aot.compile_ns.has_value());
}

// The GUI's path: the rows of the browser's scan are ls's rows of the root, in the same order.
TEST(GraphList, FromAScanEqualsFromTheRoot) {
    for (const auto& root : {kiln::test::two_entries_root(), kiln::test::h100_root()}) {
        auto fromRoot = list_graphs(root, std::nullopt);
        ASSERT_TRUE(fromRoot.ok()) << fromRoot.error().str();
        auto scan = scan_cache(root);
        ASSERT_TRUE(scan.ok());
        auto fromScan = list_graphs(*scan, std::nullopt);
        ASSERT_TRUE(fromScan.ok()) << fromScan.error().str();
        EXPECT_EQ(to_json(*fromRoot).dump(), to_json(*fromScan).dump()) << root;
        EXPECT_GT(fromScan->rows.size(), 3u);
    }
}

// Without a trace the rows still say what the graph takes; the MLP's forward and backward are
// linked to their AOT entry.
TEST(GraphList, H100WithoutTrace) {
    auto list = list_graphs(kiln::test::h100_root(), kiln::test::two_entries_root() / "missing-trace-dir");
    EXPECT_FALSE(list.ok());  // an explicit trace that is not there is an error
    auto none = list_graphs(kiln::test::h100_root(), kiln::test::fixture_dir() / "h100/trace/changed");
    ASSERT_TRUE(none.ok()) << none.error().str();
    EXPECT_EQ(none->rows.size(), 25u);  // 13 fxgraph + 12 aotautograd
    std::size_t backward = 0, named = 0;
    for (const auto& r : none->rows) {
        EXPECT_TRUE(r.error.empty()) << r.path << ": " << r.error;
        backward += r.role == "backward";
        named += !r.function.empty();
        if (r.key == "fej3ypleo5ccxyjnzfv46rsawa3nerozpyvrcvtakojqw2j5kwww") {
            ASSERT_EQ(r.inputs.size(), 2u);
            EXPECT_EQ(r.inputs[0].text, "float16[512, 512] cuda:0");
        }
    }
    EXPECT_EQ(backward, 1u);
    EXPECT_EQ(named, 2u);  // the changed run logged one graph: its fx and AOT entries
    EXPECT_EQ(describe_input("8"), "8");
}

}  // namespace
