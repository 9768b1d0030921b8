// Hand-written cases: every call torch prints, Python's floor semantics, chained comparisons,
// short-circuiting, large values, failing-conjunct reports, and errors for bad input.
#include <gtest/gtest.h>

#include "guards/expr.hpp"

namespace {

using kiln::guards::Expr;

bool eval(const std::string& src, std::vector<std::int64_t> v = {}) {
    auto e = Expr::parse(src);
    EXPECT_TRUE(e.ok()) << src << ": " << (e.ok() ? "" : e.error().str());
    if (!e.ok()) return false;
    auto r = e->evaluate(v);
    EXPECT_TRUE(r.ok()) << src << ": " << (r.ok() ? "" : r.error().str());
    return r.ok() && *r;
}

std::string parse_error(const std::string& src) {
    auto e = Expr::parse(src);
    EXPECT_FALSE(e.ok()) << src;
    return e.ok() ? "" : e.error().message;
}

std::string eval_error(const std::string& src, std::vector<std::int64_t> v = {}) {
    auto e = Expr::parse(src);
    EXPECT_TRUE(e.ok()) << src;
    if (!e.ok()) return "";
    auto r = e->evaluate(v);
    EXPECT_FALSE(r.ok()) << src;
    return r.ok() ? "" : r.error().message;
}

TEST(GuardExpr, FloorDivisionAndModuloFollowPython) {
    EXPECT_TRUE(eval("-7 // 2 == -4"));
    EXPECT_TRUE(eval("7 // -2 == -4"));
    EXPECT_TRUE(eval("-7 % 3 == 2"));
    EXPECT_TRUE(eval("7 % -3 == -2"));
    EXPECT_TRUE(eval("-6 // 3 == -2 and -6 % 3 == 0"));
    EXPECT_TRUE(eval("FloorDiv(L['t0'], 4) == -3", {-9}));
    EXPECT_TRUE(eval("PythonMod(L['t0'], 4) == 3", {-9}));
    EXPECT_TRUE(eval("Mod(L['t0'], -4) == -1", {7}));
    EXPECT_TRUE(eval("CeilDiv(L['t0'], 4) == 3 and CeilDiv(-L['t0'], 4) == -2", {9}));
    EXPECT_TRUE(eval("CleanDiv(L['t0'], 16) == 4", {64}));
    EXPECT_TRUE(eval("-7.5 // 2 == -4.0 and -7.5 % 2 == 0.5"));
}

TEST(GuardExpr, PrecedenceMatchesPython) {
    EXPECT_TRUE(eval("-2**2 == -4"));
    EXPECT_TRUE(eval("2**3**2 == 512"));
    EXPECT_TRUE(eval("2**-1 == 0.5"));
    EXPECT_TRUE(eval("1 + 2 * 3 == 7 and (1 + 2) * 3 == 9"));
    EXPECT_TRUE(eval("10 - 2 - 3 == 5 and 100 // 10 // 5 == 2"));
    EXPECT_TRUE(eval("not 1 == 2"));
    EXPECT_TRUE(eval("True or False and False"));
    EXPECT_FALSE(eval("(True or False) and False"));
}

TEST(GuardExpr, ChainedComparisons) {
    EXPECT_TRUE(eval("2 <= L['t0'] <= 64", {8}));
    EXPECT_FALSE(eval("2 <= L['t0'] <= 64", {65}));
    EXPECT_FALSE(eval("2 <= L['t0'] <= 64", {1}));
    EXPECT_TRUE(eval("1 < 2 < 3 != 4 == 4 > 0 >= 0"));
    EXPECT_FALSE(eval("3 > 2 > 2"));
}

TEST(GuardExpr, ShortCircuitSkipsErrors) {
    // The right operand would divide by zero; Python never evaluates it.
    EXPECT_FALSE(eval("L['t0'] > 0 and 1 // L['t0'] == 0", {0}));
    EXPECT_TRUE(eval("L['t0'] == 0 or 1 // L['t0'] == 0", {0}));
    EXPECT_NE(eval_error("1 // L['t0'] == 0", {0}).find("division by zero in '1 // L['t0']'"), std::string::npos);
    EXPECT_NE(eval_error("Mod(3, 0)").find("division by zero"), std::string::npos);
}

TEST(GuardExpr, EveryCall) {
    EXPECT_TRUE(eval("Eq(Mod(L['t0'], 16), 0)", {64}));
    EXPECT_FALSE(eval("Eq(Mod(L['t0'], 16), 0)", {65}));
    EXPECT_TRUE(eval("Ne(1, 2) and Lt(1, 2) and Le(2, 2) and Gt(3, 2) and Ge(2, 2)"));
    EXPECT_FALSE(eval("Lt(2, 2)"));
    EXPECT_TRUE(eval("IntTrueDiv(7, 2) == 3.5 and FloatTrueDiv(1, 4) == 0.25"));
    EXPECT_TRUE(eval("Max(1, L['t0'], 3) == 9 and Min(4, L['t0'], 3) == 3", {9}));
    EXPECT_TRUE(eval("Max(5) == 5"));
    EXPECT_TRUE(eval("Abs(-L['t0']) == L['t0'] and Abs(-2.5) == 2.5", {12}));
    EXPECT_TRUE(eval("math.floor(IntTrueDiv(7, 2)) == 3 and math.ceil(IntTrueDiv(7, 2)) == 4"));
    EXPECT_TRUE(eval("math.floor(-0.5) == -1 and math.ceil(-0.5) == 0 and math.floor(5) == 5"));
    EXPECT_TRUE(eval("torch.sym_max(L['t0'], 3) == 3 and torch.sym_min(L['t0'], 3) == 2", {2}));
    EXPECT_TRUE(eval("True and not False"));
    EXPECT_TRUE(eval("True + True == 2"));  // Python's bool is an int
}

TEST(GuardExpr, LargeValues) {
    // 2**31+16 squared fits easily; Python would say False, not wrap.
    EXPECT_FALSE(eval("L['t1']*L['t0'] <= 2147483647", {2147483664, 2147483664}));
    EXPECT_TRUE(eval("L['t0']*L['t0']*L['t0'] == 9903520314283042199192993792", {2147483648}));
    EXPECT_TRUE(eval("2**100 // 2**99 == 2"));
    EXPECT_TRUE(eval("L['t0'] < 170141183460469231731687303715884105727", {9223372036854775807}));
    // Beyond 128 bits: an error that says so, never a wrapped answer.
    EXPECT_NE(eval_error("L['t0']*L['t0']*L['t0'] > 0", {9223372036854775807}).find("overflow"), std::string::npos);
    EXPECT_NE(eval_error("2**200 > 0").find("overflow in '2**200'"), std::string::npos);
    EXPECT_NE(eval_error("L['t0'] < 1000000000000000000000000000000000000000000", {1}).find("overflow"),
              std::string::npos);
}

TEST(GuardExpr, SymbolsAndBinding) {
    auto e = Expr::parse("L['t2'] > L['x'] and L['t0'] > 0");
    ASSERT_TRUE(e.ok());
    EXPECT_EQ(e->symbols(), (std::vector<std::string>{"t0", "t1", "t2", "x"}));
    EXPECT_FALSE(e->uses_slot(1));
    auto bound = e->bind({{"t0", 1}, {"t2", 5}, {"x", 4}});
    ASSERT_TRUE(bound.ok());
    EXPECT_TRUE(*e->evaluate(*bound));
    auto missing = e->bind({{"t0", 1}});
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().message.find("L['t2']"), std::string::npos);
    auto few = e->evaluate(std::vector<std::int64_t>{1, 2});
    ASSERT_FALSE(few.ok());
    EXPECT_EQ(few.error().code, kiln::Errc::not_found);
    EXPECT_NE(few.error().message.find("missing symbol L['t2']"), std::string::npos);
}

TEST(GuardExpr, FailingConjunctNamesValues) {
    auto e = Expr::parse("L['t1']*L['t0'] <= 2147483647 and 2 <= L['t0'] and L['t0'] <= 64 and 2 <= L['t1']");
    ASSERT_TRUE(e.ok());
    auto v = e->check(std::vector<std::int64_t>{100, 8});
    ASSERT_TRUE(v.ok());
    EXPECT_FALSE(v->pass);
    EXPECT_EQ(v->failing_index, 2u);
    EXPECT_EQ(*v->failing, "L['t0'] <= 64 (L['t0'] = 100)");
    v = e->check(std::vector<std::int64_t>{60, 1LL << 30});
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(*v->failing,
              "L['t1']*L['t0'] <= 2147483647 (L['t1'] = 1073741824, L['t0'] = 60, L['t1']*L['t0'] = 64424509440)");
    v = e->check(std::vector<std::int64_t>{8, 8});
    ASSERT_TRUE(v.ok());
    EXPECT_TRUE(v->pass);
    EXPECT_FALSE(v->failing.has_value());
    EXPECT_EQ(e->conjuncts().size(), 4u);
}

TEST(GuardExpr, ParseErrorsNameConstructAndColumn) {
    EXPECT_EQ(parse_error("L['t0'] < foo"), "unknown name 'foo' at column 11");
    EXPECT_EQ(parse_error("__import__('os')"), "unknown function '__import__' at column 1");
    EXPECT_EQ(parse_error("Eq(L['t0'])"), "Eq() takes 2 argument(s), got 1 at column 1");
    EXPECT_EQ(parse_error("L['t0'] / 2 > 1"), "true division '/' is not supported at column 9");
    EXPECT_EQ(parse_error("L['t0'] <"),
              "unexpected end of expression (expected a number, L['name'], a call or '(') at column 10");
    EXPECT_EQ(parse_error("(1 < 2"),
              "unexpected end of expression (expected ')' to close '(' at column 1) at column 7");
    EXPECT_EQ(parse_error("1 < 2)"), "unexpected ')' after a complete expression at column 6");
    EXPECT_EQ(parse_error("L['t0' < 2"), "unexpected '<' (expected ']' to close L[) at column 8");
    EXPECT_EQ(parse_error("L[0] > 1"), "unexpected '0' (expected a quoted name in L[...]) at column 3");
    EXPECT_EQ(parse_error("1 if True else 2"), "unexpected 'if' after a complete expression at column 3");
    EXPECT_EQ(parse_error("x.y.z > 1"), "unknown name 'x.y.z' at column 1");
    EXPECT_EQ(parse_error("math.sqrt(4) > 1"), "unknown function 'math.sqrt' at column 1");
    EXPECT_EQ(parse_error("1 in L"), "operator 'in' is not supported at column 3");
    EXPECT_EQ(parse_error("L['t0'] $ 2"), "unexpected character '$' at column 9");
    EXPECT_EQ(parse_error("'unterminated"), "unterminated string literal at column 1");
    EXPECT_EQ(parse_error(""), "empty guard expression");
    EXPECT_EQ(parse_error("01 > 0"), "integer literal with a leading zero '01' at column 1");
    auto deep = Expr::parse(std::string(500, '(') + "1" + std::string(500, ')'));
    ASSERT_FALSE(deep.ok());
    EXPECT_EQ(deep.error().code, kiln::Errc::limit);
}

TEST(GuardExpr, AndOrReturnOperandsLikePython) {
    EXPECT_TRUE(eval("(0 or 5) == 5 and (3 and 0) == 0 and (2 and 7) == 7"));
}

}  // namespace

namespace {

// Issue 16.17: one checked rule for symbol indices. t4096 is the last slot; any t<digits> above it
// is refused, whatever its length (L['t4294967297'] was taken as a name and bound to slot 0, the
// value of t0, while t4097 was refused).
TEST(GuardExpr, SymbolIndicesHaveOneCheckedLimit) {
    auto last = Expr::parse("L['t4096'] > 1");
    ASSERT_TRUE(last.ok()) << last.error().str();
    EXPECT_EQ(last->symbols().size(), 4097u);
    for (const char* big :
         {"t4097", "t4294967297", "t4294967296", "t18446744073709551617", "t99999999999999999999999999"}) {
        auto e = Expr::parse(std::string("L['") + big + "'] > 1");
        ASSERT_FALSE(e.ok()) << big;
        EXPECT_EQ(e.error().code, kiln::Errc::limit) << big;
        EXPECT_NE(e.error().message.find(big), std::string::npos) << e.error().message;
    }
    // Names that are no index stay names, bound after the slots.
    auto named = Expr::parse("L['t01'] + L['t1'] > 1");
    ASSERT_TRUE(named.ok()) << named.error().str();
    EXPECT_EQ(named->symbols(), (std::vector<std::string>{"t0", "t1", "t01"}));
}

}  // namespace
