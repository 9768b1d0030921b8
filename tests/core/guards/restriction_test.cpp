// Tuning-spec restrictions (Dialect::restriction): bare names bound by name, Python's arithmetic on
// exact integers, and the inputs that broke the old 64-bit evaluator, which answered them wrongly or
// looped: each gives Python's exact answer or a clear error.
#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "guards/expr.hpp"

namespace {

using kiln::guards::Dialect;
using kiln::guards::Expr;
using kiln::guards::Number;
using Bindings = std::map<std::string, std::int64_t>;

kiln::Result<Number> value_of(const Expr& e, const Bindings& b) {
    KILN_TRY(auto values, e.bind(b));
    return e.value(values);
}

std::int64_t eval_restriction(const std::string& text, const Bindings& b = {}) {
    auto e = Expr::parse(text, Dialect::restriction);
    EXPECT_TRUE(e.ok()) << text << ": " << (e.ok() ? "" : e.error().str());
    if (!e.ok()) return -999;
    auto v = value_of(*e, b);
    EXPECT_TRUE(v.ok()) << text;
    return v.ok() ? static_cast<std::int64_t>(v->i) : -999;
}

// Python's repr() of the value, or the error message.
std::string python(const std::string& text, const Bindings& b = {}) {
    auto e = Expr::parse(text, Dialect::restriction);
    if (!e.ok()) return "parse error: " + e.error().message;
    auto v = value_of(*e, b);
    return v.ok() ? kiln::guards::repr(*v) : "error: " + v.error().message;
}

TEST(Restriction, ArithmeticAndComparisonsFollowPython) {
    Bindings b{{"BLOCK_M", 64}, {"BLOCK_N", 256}};
    EXPECT_EQ(eval_restriction("BLOCK_M * BLOCK_N <= 16384", b), 1);
    EXPECT_EQ(eval_restriction("BLOCK_M * BLOCK_N < 16384", b), 0);
    EXPECT_EQ(eval_restriction("-7 // 2"), -4);
    EXPECT_EQ(eval_restriction("-7 % 3"), 2);
    EXPECT_EQ(eval_restriction("2 ** 10 + 1"), 1025);
    EXPECT_EQ(eval_restriction("1 < 2 < 3"), 1);
    EXPECT_EQ(eval_restriction("3 > 2 > 2"), 0);
    EXPECT_EQ(eval_restriction("not 0 and (1 or 0)"), 1);
    EXPECT_EQ(eval_restriction("1 && !0 || 0"), 1);
    EXPECT_EQ(eval_restriction("BLOCK_N != 256", b), 0);
}

TEST(Restriction, ErrorsNameTheProblem) {
    EXPECT_FALSE(Expr::parse("1 +", Dialect::restriction).ok());
    EXPECT_FALSE(Expr::parse("(1", Dialect::restriction).ok());
    EXPECT_FALSE(Expr::parse("1 $ 2", Dialect::restriction).ok());
    auto e = Expr::parse("X + 1", Dialect::restriction);
    ASSERT_TRUE(e.ok());
    auto v = value_of(*e, {});
    ASSERT_FALSE(v.ok());
    EXPECT_NE(v.error().message.find("unknown name 'X'"), std::string::npos);
    EXPECT_FALSE(value_of(*Expr::parse("1 // 0", Dialect::restriction), {}).ok());
}

TEST(Restriction, PythonsExactAnswerOrAClearError) {
    EXPECT_EQ(python("9223372036854775807 + 1"), "9223372036854775808");
    EXPECT_EQ(python("2 ** -1"), "0.5");
    EXPECT_EQ(python("2 ** 64"), "18446744073709551616");
    EXPECT_EQ(python("-9223372036854775808 // -1"), "9223372036854775808");
    EXPECT_EQ(python("x // -1", {{"x", INT64_MIN}}), "9223372036854775808");
    EXPECT_EQ(python("7 / 2"), "3.5");  // true division, as in Python
    EXPECT_EQ(python("8 / 2 == 4"), "True");
    // A huge exponent: exact where the answer is small, an overflow error where it is not; never a loop.
    EXPECT_EQ(python("x ** 40000000000", {{"x", 1}}), "1");
    EXPECT_EQ(python("x ** 40000000000", {{"x", -1}}), "1");
    EXPECT_EQ(python("x ** 40000000001", {{"x", -1}}), "-1");
    EXPECT_EQ(python("x ** 40000000000", {{"x", 0}}), "0");
    EXPECT_EQ(python("x ** 40000000000", {{"x", 2}}),
              "error: integer overflow in 'x ** 40000000000': the value exceeds 128 bits");
    EXPECT_EQ(python("2.0 ** 40000000000"), "error: float result out of range in '2.0 ** 40000000000'");
    EXPECT_EQ(python("1 / 0"), "error: division by zero in '1 / 0'");
}

TEST(Restriction, NamesAreBoundByNameAndGuardSyntaxStaysStrict) {
    auto e = Expr::parse("BM * BK * 4 <= SMEM and BM % 16 == 0", Dialect::restriction);
    ASSERT_TRUE(e.ok()) << e.error().str();
    EXPECT_EQ(e->symbols(), (std::vector<std::string>{"BM", "BK", "SMEM"}));
    EXPECT_EQ(python("BM * BK * 4 <= SMEM and BM % 16 == 0", {{"BM", 64}, {"BK", 32}, {"SMEM", 8192}}), "True");
    EXPECT_EQ(python("true and not false"), "True");
    // Guards keep torch's grammar: no bare names, no '/', no C operators.
    EXPECT_FALSE(Expr::parse("BM > 1").ok());
    EXPECT_FALSE(Expr::parse("L['t0'] / 2 > 1").ok());
    EXPECT_FALSE(Expr::parse("1 && 1").ok());
    EXPECT_EQ(python("x if x else 1", {{"x", 1}}),
              "parse error: unexpected 'if' after a complete expression at column 3");
}

TEST(Restriction, LongChainsAreLoopsNotRecursion) {
    // 60,000 terms: parsed, compiled and evaluated without a stack frame per term.
    std::string sum = "1";
    for (int i = 1; i < 60000; ++i) sum += i % 2 ? " + 1" : " - 1 + 2";
    auto e = Expr::parse(sum + " > 0", Dialect::restriction);
    ASSERT_TRUE(e.ok()) << e.error().str();
    EXPECT_TRUE(e->has_fast_path());
    EXPECT_TRUE(*e->evaluate(std::vector<std::int64_t>{}));
    EXPECT_EQ(python(sum), "60000");
    // Nesting still recurses, so it stays capped.
    auto deep = Expr::parse(std::string(300, '-') + "1", Dialect::restriction);
    ASSERT_FALSE(deep.ok());
    EXPECT_EQ(deep.error().code, kiln::Errc::limit);
}

}  // namespace
