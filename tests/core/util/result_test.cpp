#include "util/result.hpp"

#include <gtest/gtest.h>

using namespace kiln;

static Result<int> parse_positive(int v) {
    if (v <= 0) return make_error(Errc::invalid_argument, "not positive", "arg", "pass a value > 0");
    return v;
}

static Result<int> doubled(int v) {
    KILN_TRY(int x, parse_positive(v));
    return 2 * x;
}

TEST(Result, ValueAndErrorPropagate) {
    EXPECT_EQ(*doubled(4), 8);
    auto r = doubled(-1);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, Errc::invalid_argument);
    EXPECT_EQ(r.error().str(), "arg: not positive (pass a value > 0)");
}

TEST(Result, ContextNests) {
    Error e = make_error(Errc::parse, "bad opcode", "offset 12");
    Error outer = std::move(e).with_context("file.pkl");
    EXPECT_EQ(outer.str(), "file.pkl: offset 12: bad opcode");
}
