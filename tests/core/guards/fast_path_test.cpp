// The int64 fast path (bytecode.hpp) must agree with the 128-bit tree on every input, bail out
// rather than wrap, and apply only to integer expressions.
#include <gtest/gtest.h>

#include "guards/expr.hpp"

namespace {

using kiln::guards::Expr;

const std::vector<std::int64_t> kValues{
    -9, -2, -1, 0, 1, 2, 3, 7, 16, 64, 65, 2147483647, 2147483664, 4611686018427387904, 9223372036854775807};

TEST(GuardFastPath, AgreesWithTheTreeEverywhere) {
    const std::vector<std::string> exprs{
        "L['t1']*L['t0'] <= 2147483647 and 2 <= L['t0'] and L['t0'] <= 64 and 2 <= L['t1']",
        "2 <= L['t0'] <= 64 or L['t1'] == 3",
        "Eq(Mod(L['t0'], 16), 0) and Ne(PythonMod(L['t1'], 3), 1)",
        "FloorDiv(L['t0'], 4) + CeilDiv(L['t1'], 4) >= CleanDiv(L['t0'], 2)",
        "Max(L['t0'], L['t1'], 3) - Min(L['t0'], 5) > torch.sym_max(L['t1'], 0) - torch.sym_min(L['t0'], 1)",
        "Abs(L['t0'] - L['t1']) < 100 and not L['t0'] == L['t1']",
        "L['t0'] ** 2 > L['t1'] and -L['t0'] // 3 < L['t1'] % 5",
        "Lt(L['t0'], L['t1']) or Le(L['t1'], 0) or Gt(L['t0'], 9) and Ge(L['t1'], 2)",
        "(L['t0'] and L['t1']) == L['t1']",
    };
    int bailed_and_recovered = 0;
    for (const auto& src : exprs) {
        auto e = Expr::parse(src);
        ASSERT_TRUE(e.ok()) << src << ": " << e.error().str();
        EXPECT_TRUE(e->has_fast_path()) << src;
        for (auto a : kValues) {
            for (auto b : kValues) {
                std::vector<std::int64_t> v{a, b};
                auto fast = e->evaluate(v);
                auto tree = e->check(v);  // always the tree
                ASSERT_EQ(fast.ok(), tree.ok()) << src << " at " << a << "," << b;
                if (!fast.ok()) {
                    EXPECT_EQ(fast.error().message, tree.error().message);
                    continue;
                }
                EXPECT_EQ(*fast, tree->pass) << src << " at " << a << "," << b;
                if (a == 9223372036854775807 || b == 9223372036854775807) ++bailed_and_recovered;
            }
        }
    }
    EXPECT_GT(bailed_and_recovered, 0);
}

TEST(GuardFastPath, OverflowOfInt64FallsBackToExactValues) {
    // 2**62 * 4 overflows int64; the tree computes 2**64 exactly.
    auto e = Expr::parse("L['t0'] * 4 == 18446744073709551616");
    ASSERT_TRUE(e.ok());
    EXPECT_TRUE(*e->evaluate(std::vector<std::int64_t>{4611686018427387904}));
}

TEST(GuardFastPath, FloatsTakeTheTree) {
    for (const char* src : {"IntTrueDiv(L['t0'], 2) > 1", "math.floor(L['t0']) == 1", "L['t0'] < 2.5",
                            "L['t0'] < 99999999999999999999999"}) {
        auto e = Expr::parse(src);
        ASSERT_TRUE(e.ok()) << src;
        EXPECT_FALSE(e->has_fast_path()) << src;
    }
}

}  // namespace
