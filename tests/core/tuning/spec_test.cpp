#include <gtest/gtest.h>

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
