// Issue 42 #1: a Triton template module with 50 KB of spaces after `@triton.jit` is read to the same
// result as the module Inductor wrote. std::regex recursed once per character there and overflowed
// the stack (SIGSEGV in `retune --list` and the GUI).
#include <gtest/gtest.h>

#include <string>

#include "retune/template_module.hpp"
#include "test_support.hpp"

using namespace kiln::retune;

TEST(RetuneHostileTemplate, FiftyKilobytesOfSpacesAfterTritonJit) {
    const std::string text = kiln::test::read_file(kiln::test::h100_root() / "zo" /
                                                   "czotzywsqlxea3dhs3qhrphv2dh7sgk5citgjx7hidvdiweg7xqz.py");
    std::string hostile = text;
    auto at = hostile.find("@triton.jit");
    ASSERT_NE(at, std::string::npos);
    hostile.insert(at + 11, std::string(50 * 1024, ' '));

    auto want = parse_template_module(text, "czotz.py");
    ASSERT_TRUE(want.ok()) << want.error().str();
    auto got = parse_template_module(hostile, "hostile.py");
    ASSERT_TRUE(got.ok()) << got.error().str();
    EXPECT_EQ(got->kernel, "triton_mm");
    EXPECT_EQ(got->signature, want->signature);
    EXPECT_EQ(got->config, want->config);
    EXPECT_EQ(got->assignments, want->assignments);
    EXPECT_EQ(got->assignments.at("M"), "512");
}

// The spaces without the newline and def after them: no kernel, said as an error.
TEST(RetuneHostileTemplate, SpacesWithoutADefAreAnError) {
    const std::string text =
        "@triton_heuristics.template(\nnum_warps=4,\n)\n@triton.jit" + std::string(50 * 1024, ' ') + "x\n";
    auto got = parse_template_module(text, "hostile.py");
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.error().code, kiln::Errc::parse);
}
