// Debug-line parsing (§6) and the component diff, on the fixtures' golden debug lines.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "inductor/debug_lines.hpp"
#include "inductor/key_diff.hpp"
#include "test_support.hpp"

namespace {

using namespace kiln::inductor;

nlohmann::json golden_entry(const std::string& key_prefix) {
    auto g = nlohmann::json::parse(kiln::test::read_file(kiln::test::fixture_dir() / "h100" / "golden.json"));
    for (const auto& e : g.at("entries"))
        if (e.at("path").get<std::string>().find("/" + key_prefix) != std::string::npos) return e;
    ADD_FAILURE() << "no golden entry " << key_prefix;
    return {};
}

const std::string kHash = "isrmcexjb5ew4gwqxkk5blhf6prridxpvx6cdf7m6nzmgbgtg5j";

TEST(DebugLines, ParsesEveryGoldenLine) {
    auto e = golden_entry("fbthtgcfn6jl");
    auto lines = e.at("debug_lines").get<std::vector<std::string>>();
    auto comps = parse_debug_lines(lines);
    ASSERT_TRUE(comps.ok()) << comps.error().str();
    ASSERT_EQ(comps->size(), lines.size());
    EXPECT_EQ((*comps)[0].name, "gm");
    EXPECT_EQ((*comps)[0].hash, kHash);
    EXPECT_NE((*comps)[0].value.find("def forward(self, arg0_1, arg1_1, arg2_1):\n"), std::string::npos);
    EXPECT_EQ((*comps)[1].name, "example_inputs[0]");
    EXPECT_EQ((*comps)[1].value, "('s77',)");
    int configs = 0;
    for (const auto& c : *comps) {
        EXPECT_EQ(c.hash.size(), 51u);
        if (c.name.rfind("inductor_config[", 0) == 0) ++configs;
        if (c.name == "cache_key_tag") {
            EXPECT_EQ(c.value, "");
        }
    }
    EXPECT_EQ(configs, 509);
}

TEST(DebugLines, ValuesSpanLinesInText) {
    std::string text =
        "[" + kHash + "] gm: def forward(self):\n    return (x,)\n[" + kHash + "] fx_kwargs[cpp_wrapper]: False\n";
    auto comps = parse_debug_text(text);
    ASSERT_TRUE(comps.ok());
    ASSERT_EQ(comps->size(), 2u);
    EXPECT_EQ((*comps)[0].value, "def forward(self):\n    return (x,)");
    EXPECT_EQ((*comps)[1].name, "fx_kwargs[cpp_wrapper]");
    // A list that split the value over items is joined back.
    auto split = parse_debug_lines({"[" + kHash + "] gm: a", "  b", "[" + kHash + "] x: 1"});
    ASSERT_TRUE(split.ok());
    EXPECT_EQ((*split)[0].value, "a\n  b");
}

TEST(DebugLines, RejectsMalformed) {
    auto none = parse_debug_lines({"not a debug line"});
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, kiln::Errc::parse);
    auto no_colon = parse_debug_lines({"[" + kHash + "] name without colon"});
    ASSERT_FALSE(no_colon.ok());
    EXPECT_NE(no_colon.error().message.find("': '"), std::string::npos);
    // Built with append: GCC 12 warns falsely (-Wrestrict) on `"[" + std::string`.
    EXPECT_FALSE(starts_component(std::string("[").append(kHash.substr(1)).append("] x: 1")));
    EXPECT_FALSE(starts_component(std::string("[").append(51, 'A').append("] x: 1")));
}

// The named parse is parse_debug_lines filtered by name: same components, values and errors.
std::vector<KeyComponent> named_of(const std::vector<KeyComponent>& all, const std::string& prefix) {
    std::vector<KeyComponent> out;
    for (const auto& c : all)
        if (c.name.rfind(prefix, 0) == 0) out.push_back(c);
    return out;
}

void expect_same_components(const std::vector<KeyComponent>& a, const std::vector<KeyComponent>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].hash, b[i].hash) << i;
        EXPECT_EQ(a[i].name, b[i].name) << i;
        EXPECT_EQ(a[i].value, b[i].value) << i;
    }
}

TEST(DebugLines, NamedParseIsTheFullParseFiltered) {
    for (const char* key : {"fbthtgcfn6jl", "fmo2n45uv3b6"}) {
        auto lines = golden_entry(key).at("debug_lines").get<std::vector<std::string>>();
        auto all = parse_debug_lines(lines);
        ASSERT_TRUE(all.ok());
        for (const std::string prefix : {"example_inputs[", "inductor_config[", "gm", "no such name"}) {
            auto named = parse_debug_lines_named(lines, prefix);
            ASSERT_TRUE(named.ok()) << named.error().str();
            expect_same_components(*named, named_of(*all, prefix));
        }
        EXPECT_FALSE(parse_debug_lines_named(lines, "example_inputs[")->empty()) << key;
    }
    // Values split over items are joined, for a wanted component; an empty first value continues.
    const std::string h = "[" + kHash + "] ";
    const std::vector<std::string> split{h + "gm: a",
                                         "  b",
                                         h + "example_inputs[0]: (",
                                         "  's1',)",
                                         h + "example_inputs[1]:",
                                         "x: y",
                                         h + "example_inputs[2]: ('s2',)"};
    auto all = parse_debug_lines(split);
    ASSERT_TRUE(all.ok());
    auto named = parse_debug_lines_named(split, "example_inputs[");
    ASSERT_TRUE(named.ok());
    expect_same_components(*named, named_of(*all, "example_inputs["));
    ASSERT_EQ(named->size(), 3u);
    EXPECT_EQ((*named)[0].value, "(\n  's1',)");
    EXPECT_EQ((*named)[1].value, "x: y");
    EXPECT_TRUE(parse_debug_lines_named(std::vector<std::string>{}, "gm")->empty());
    // The views of the same lines (a decoded entry's, without copies) give the same components.
    const std::vector<std::string_view> views(split.begin(), split.end());
    auto named_views = parse_debug_lines_named(views, "example_inputs[");
    ASSERT_TRUE(named_views.ok());
    expect_same_components(*named_views, *named);
}

TEST(DebugLines, NamedParseFailsWhereTheFullParseFails) {
    const std::string h = "[" + kHash + "] ";
    // An unwanted item that does not split still fails the list, as parse_debug_lines does.
    for (const auto& lines : {std::vector<std::string>{"not a debug line"},
                              std::vector<std::string>{h + "example_inputs[0]: 1", h + "name without colon"},
                              std::vector<std::string>{h + "example_inputs[0]: 1", h + ":"}}) {
        auto all = parse_debug_lines(lines);
        auto named = parse_debug_lines_named(lines, "example_inputs[");
        ASSERT_FALSE(all.ok());
        ASSERT_FALSE(named.ok());
        EXPECT_EQ(named.error().str(), all.error().str());
    }
}

TEST(KeyDiff, PointwiseGraphUnderChangedConfig) {
    // The `changed` process compiled the pointwise graph with two inductor configs changed.
    auto cold = parse_debug_lines(golden_entry("fmo2n45uv3b6").at("debug_lines").get<std::vector<std::string>>());
    auto changed = parse_debug_lines(golden_entry("fbthtgcfn6jl").at("debug_lines").get<std::vector<std::string>>());
    ASSERT_TRUE(cold.ok() && changed.ok());
    ComponentDiff d = diff_components(*cold, *changed);
    std::vector<std::string> names;
    for (const auto& c : d.changed) names.push_back(c.component);
    EXPECT_EQ(names, (std::vector<std::string>{"inductor_config[realize_opcount_threshold]",
                                               "inductor_config[max_fusion_size]"}));
    EXPECT_TRUE(d.only_a.empty());
    EXPECT_TRUE(d.only_b.empty());
    EXPECT_EQ(d.same, cold->size() - 2);
    EXPECT_NE(d.changed[0].a, d.changed[0].b);
}

TEST(KeyDiff, OnlyOnOneSideAndRepeatedNames) {
    std::vector<KeyComponent> a{{"h1", "x", "1"}, {"h2", "y", "2"}, {"h3", "dup", "a"}, {"h4", "dup", "b"}};
    std::vector<KeyComponent> b{{"h1", "x", "1"}, {"h9", "z", "3"}, {"h3", "dup", "a"}, {"h5", "dup", "c"}};
    ComponentDiff d = diff_components(a, b);
    EXPECT_EQ(d.same, 2u);
    ASSERT_EQ(d.changed.size(), 1u);
    EXPECT_EQ(d.changed[0].component, "dup");
    EXPECT_EQ(d.changed[0].b, "c");
    EXPECT_EQ(d.only_a, std::vector<std::string>{"y"});
    EXPECT_EQ(d.only_b, std::vector<std::string>{"z"});
    EXPECT_EQ(d.distance(), 3u);
}

TEST(KeyDiff, LineDiffOfGraphCode) {
    auto lines =
        line_diff("def f(x):\n    a = x + 1\n    return a", "def f(x):\n    a = x * 2\n    b = a\n    return a");
    std::string shown;
    for (const auto& l : lines) shown += static_cast<char>(l.op) + l.text + "\n";
    EXPECT_EQ(shown, " def f(x):\n-    a = x + 1\n+    a = x * 2\n+    b = a\n     return a\n");
    std::string a, b;
    for (int i = 0; i < 20; ++i) a += "line" + std::to_string(i) + "\n";
    b = a;
    b.replace(b.find("line10"), 6, "LINE10");
    std::string text = format_line_diff(line_diff(a, b), 1);
    EXPECT_EQ(text, " line9\n-line10\n+LINE10\n line11\n");
}

}  // namespace
