// Every (sizes, result) pair that torch's own ShapeEnv.evaluate_guards_expression produced for the
// fixtures' entries (golden.json) must come out the same here.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "guards/expr.hpp"
#include "test_support.hpp"

namespace {

using kiln::guards::Expr;

struct Counts {
    int exprs = 0;
    int evals = 0;
};

Counts check_golden(const std::filesystem::path& golden_path) {
    auto golden = nlohmann::json::parse(kiln::test::read_file(golden_path));
    Counts c;
    for (const auto& entry : golden.at("entries")) {
        if (!entry.contains("guards_expr") || entry.at("guards_expr").is_null()) continue;
        std::string src = entry.at("guards_expr").get<std::string>();
        auto parsed = Expr::parse(src);
        EXPECT_TRUE(parsed.ok()) << src << ": " << (parsed.ok() ? "" : parsed.error().str());
        if (!parsed.ok()) continue;
        ++c.exprs;
        auto symbols = entry.at("guard_symbols").get<std::vector<std::string>>();
        EXPECT_EQ(parsed->symbols(), symbols) << src;
        for (const auto& pair : entry.at("guard_evals")) {
            auto sizes = pair.at(0).get<std::vector<std::int64_t>>();
            bool want = pair.at(1).get<bool>();
            auto got = parsed->evaluate(sizes);
            EXPECT_TRUE(got.ok()) << src << ": " << (got.ok() ? "" : got.error().str());
            if (!got.ok()) continue;
            EXPECT_EQ(*got, want) << src << " with " << pair.at(0).dump();
            auto verdict = parsed->check(sizes);
            EXPECT_TRUE(verdict.ok());
            if (verdict.ok()) {
                EXPECT_EQ(verdict->pass, want) << src;
                EXPECT_EQ(verdict->failing.has_value(), !want) << src;
            }
            ++c.evals;
        }
    }
    return c;
}

TEST(GuardsGolden, H100FixtureMatchesTorch) {
    Counts c = check_golden(kiln::test::fixture_dir() / "h100" / "golden.json");
    EXPECT_EQ(c.exprs, 16);  // the fxgraph and aotautograd entries that carry guards
    EXPECT_EQ(c.evals, 382);
}

TEST(GuardsGolden, TwoEntriesFixtureMatchesTorch) {
    Counts c = check_golden(kiln::test::fixture_dir() / "two" / "golden.json");
    EXPECT_EQ(c.exprs, 4);
    EXPECT_EQ(c.evals, 4 * 14);
}

}  // namespace
