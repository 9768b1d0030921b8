#include <gtest/gtest.h>

#include <fstream>

#include "test_support.hpp"
#include "tuning/spec.hpp"

using namespace kiln::tuning;
using namespace kiln::worker;

static nlohmann::json small_spec() {
    return nlohmann::json::parse(R"({
      "op": "t", "kernel_name": "k", "template": "int x;",
      "inputs": [{"dtype": "float32", "sizes": [4, 4]}], "output": {"dtype": "float32", "sizes": [4]},
      "params": {"A": [1, 2, 4], "B": [1, 2]}, "constants": {"LIMIT": 4},
      "restrictions": ["A * B <= LIMIT"], "reference": {"A": 1, "B": 1}
    })");
}

TEST(Spec, GridIsFilteredByRestrictionsWithTheReferenceFirst) {
    auto s = parse_spec(small_spec(), ".");
    ASSERT_TRUE(s.ok()) << s.error().str();
    auto c = enumerate_choices(*s);
    ASSERT_TRUE(c.ok()) << c.error().str();
    // (1,1) ref, (1,2), (2,1), (2,2), (4,1); (4,2) violates A*B <= 4.
    ASSERT_EQ(c->size(), 5u);
    EXPECT_TRUE((*c)[0].is_reference);
    EXPECT_EQ((*c)[0].name, "A=1, B=1");
    for (const auto& ch : *c) EXPECT_LE(ch.params.at("A") * ch.params.at("B"), 4);
    EXPECT_NE((*c)[1].source.find("#define A 1\n#define B 2\n"), std::string::npos);
    EXPECT_EQ((*c)[1].source.find("LIMIT"), std::string::npos);  // constants serve restrictions only
}

TEST(Spec, RandomStrategyRespectsItsBudgetAndSeed) {
    auto j = small_spec();
    j["strategy"] = {{"kind", "random"}, {"budget", 3}, {"seed", 7}};
    auto s = parse_spec(j, ".");
    ASSERT_TRUE(s.ok());
    auto a = enumerate_choices(*s), b = enumerate_choices(*s);
    ASSERT_EQ(a->size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ((*a)[i].name, (*b)[i].name);
    EXPECT_TRUE((*a)[0].is_reference);
}

TEST(Spec, RejectsBadSpecs) {
    auto j = small_spec();
    j["reference"] = {{"A", 4}, {"B", 2}};
    auto s = parse_spec(j, ".");
    ASSERT_TRUE(s.ok());
    EXPECT_FALSE(enumerate_choices(*s).ok());  // the reference violates a restriction
    j = small_spec();
    j["inputs"][0]["dtype"] = "float7";
    EXPECT_FALSE(parse_spec(j, ".").ok());
    j = small_spec();
    j["restrictions"] = {"A *"};
    EXPECT_FALSE(parse_spec(j, ".").ok());
}

TEST(Spec, ShippedExamplesParse) {
    for (const char* name : {"matmul_cpu.json", "reduction_cpu.json", "matmul_cuda.json", "reduction_cuda.json"}) {
        auto s = load_spec(kiln::test::source_dir() / "resources/examples" / name);
        ASSERT_TRUE(s.ok()) << name << ": " << s.error().str();
        auto c = enumerate_choices(*s);
        ASSERT_TRUE(c.ok()) << name << ": " << c.error().str();
        EXPECT_GE(c->size(), 6u) << name;
    }
    auto mm = load_spec(kiln::test::source_dir() / "resources/examples/matmul_cuda.json");
    EXPECT_GE(enumerate_choices(*mm)->size(), 64u);  // the scaling benchmark needs 64+
}

namespace {

// `n` parameters of 10 values each; the reference is the first value of each.
nlohmann::json wide_spec(int n, int budget) {
    auto j = small_spec();
    j["params"] = nlohmann::json::object();
    j["reference"] = nlohmann::json::object();
    j["restrictions"] = {"P0 % 2 == 1 or P0 == 0"};
    for (int i = 0; i < n; ++i) {
        std::vector<int> values(10);
        for (int v = 0; v < 10; ++v) values[v] = v;
        j["params"]["P" + std::to_string(i)] = values;
        j["reference"]["P" + std::to_string(i)] = 0;
    }
    j["strategy"] = {{"kind", "random"}, {"budget", budget}, {"seed", 3}};
    return j;
}

}  // namespace

// Issue 16.10: random search with a budget samples; 7 params x 10 values with budget 3 built the
// whole 10^7 grid (> 6 GB), 8 were OOM-killed. 12 parameters (10^12 points) here; the restriction
// still holds for every sample.
TEST(Spec, RandomBudgetSamplesWithoutBuildingTheGrid) {
    for (int n : {7, 8, 12}) {
        auto s = parse_spec(wide_spec(n, 3), ".");
        ASSERT_TRUE(s.ok()) << s.error().str();
        auto c = enumerate_choices(*s);
        ASSERT_TRUE(c.ok()) << c.error().str();
        ASSERT_EQ(c->size(), 3u) << n;
        EXPECT_TRUE((*c)[0].is_reference);
        for (const auto& ch : *c) EXPECT_TRUE(ch.params.at("P0") % 2 == 1 || ch.params.at("P0") == 0) << ch.name;
        EXPECT_NE((*c)[1].name, (*c)[2].name);
        auto again = enumerate_choices(*s);  // the seed decides
        EXPECT_EQ((*again)[1].name, (*c)[1].name);
    }
    // A restriction nothing passes: fewer choices after a bounded number of draws, no hang.
    auto j = wide_spec(9, 50);
    j["restrictions"] = {"P0 == 0 and P1 == 0 and P2 == 0 and P3 == 0"};
    auto s = parse_spec(j, ".");
    ASSERT_TRUE(s.ok());
    auto c = enumerate_choices(*s);
    ASSERT_TRUE(c.ok());
    EXPECT_LT(c->size(), 50u);
    // Enumerating such a grid whole is refused with the way out.
    j = wide_spec(8, 0);
    s = parse_spec(j, ".");
    ASSERT_TRUE(s.ok());
    auto whole = enumerate_choices(*s);
    ASSERT_FALSE(whole.ok());
    EXPECT_NE(whole.error().hint.find("budget"), std::string::npos);
}

// Unclear errors (issue 16): bad timing values are load-time errors naming the spec and the field
// (warmup_ms -1 used to reach the worker as "vector::reserve").
TEST(Spec, BadNumbersAreLoadErrorsNamingTheField) {
    kiln::test::ScratchDir dir("spec-numbers");
    const std::pair<const char*, nlohmann::json> cases[] = {
        {"timing.warmup_ms", {{"timing", {{"warmup_ms", -1}}}}},
        {"timing.rep_ms", {{"timing", {{"rep_ms", 0}}}}},
        {"timing.min_reps", {{"timing", {{"min_reps", -5}}}}},
        {"timing.max_reps", {{"timing", {{"min_reps", 10}, {"max_reps", 2}}}}},
        {"strategy.budget", {{"strategy", {{"kind", "random"}, {"budget", -1}}}}},
        {"strategy.seconds", {{"strategy", {{"kind", "random"}, {"seconds", -3.0}}}}},
        {"tolerance", {{"tolerance", {{"rtol", -1.0}}}}},
    };
    for (const auto& [field, patch] : cases) {
        auto j = small_spec();
        j.merge_patch(patch);
        auto path = dir.path() / "bad.json";
        std::ofstream(path) << j.dump();
        auto s = load_spec(path);
        ASSERT_FALSE(s.ok()) << field;
        EXPECT_EQ(s.error().code, kiln::Errc::invalid_argument) << field;
        EXPECT_NE(s.error().message.find(field), std::string::npos) << s.error().str();
        EXPECT_NE(s.error().context.find(path.string()), std::string::npos) << s.error().str();
    }
}

// Issue 16.8 through the spec's restrictions (the guard engine): Python's exact answers or a clear
// error naming the spec, never a trap, a wrap-around or a loop.
TEST(Spec, RestrictionsGivePythonsAnswersOrErrorsNamingTheSpec) {
    kiln::test::ScratchDir dir("spec-restrictions");
    auto choices = [&](const std::string& restriction, std::vector<int> values) -> kiln::Result<std::size_t> {
        auto j = small_spec();
        j["params"] = {{"P", values}};
        j["reference"] = {{"P", values[0]}};
        j["restrictions"] = {restriction};
        auto path = dir.path() / "r.json";
        std::ofstream(path, std::ios::trunc) << j.dump();
        auto s = load_spec(path);
        if (!s.ok()) return s.error();
        auto c = enumerate_choices(*s);
        if (!c.ok()) return c.error();
        return c->size();
    };
    EXPECT_EQ(*choices("-9223372036854775808 // -1 == 9223372036854775808", {1, 2}), 2u);
    EXPECT_EQ(*choices("9223372036854775807 + P > 0", {1, 2}), 2u);
    EXPECT_EQ(*choices("2 ** -1 == 0.5", {1, 2}), 2u);
    EXPECT_EQ(*choices("P / 2 == 0.5 or P == 2", {1, 2, 3}), 2u);  // true division: 3 / 2 is 1.5
    std::string chain = "P";
    for (int i = 0; i < 60000; ++i) chain += " + 1";
    EXPECT_EQ(*choices(chain + " > 60000", {1, 2}), 2u);
    auto huge = choices("P ** 9223372036854775807 > 0", {1, 2});
    ASSERT_FALSE(huge.ok());
    EXPECT_NE(huge.error().message.find("overflow"), std::string::npos) << huge.error().str();
    EXPECT_NE(huge.error().context.find((dir.path() / "r.json").string()), std::string::npos) << huge.error().str();
    auto deep = choices(std::string(100000, '(') + "P" + std::string(100000, ')') + " > 0", {1});
    ASSERT_FALSE(deep.ok());
    EXPECT_NE(deep.error().context.find("r.json"), std::string::npos) << deep.error().str();
}

// `autotune DIR`, a FIFO or a missing file as the spec: a clear error, not "basic_filebuf::underflow".
TEST(Spec, ADirectoryIsNoSpec) {
    kiln::test::ScratchDir dir("spec-dir");
    auto s = load_spec(dir.path());
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("directory"), std::string::npos) << s.error().str();
    EXPECT_EQ(s.error().code, kiln::Errc::invalid_argument);
}
