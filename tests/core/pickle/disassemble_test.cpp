// The disassembler's output on hostile nesting.
#include "pickle/disassemble.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

// Issue 16.11: MARK nesting no longer multiplies the output (20 KB of MARKs gave 800 MB).
TEST(Disassemble, IndentationIsCappedForDeepMarks) {
    std::string bytes = "\x80\x02";
    for (int i = 0; i < 20000; ++i) bytes += '(';  // MARK
    auto ops = kiln::pickle::disassemble_prefix(bytes, nullptr, {});
    std::size_t total = 0, longest = 0;
    for (const auto& op : ops) {
        std::string line = kiln::pickle::format_op(op);
        total += line.size();
        longest = std::max(longest, line.size());
    }
    EXPECT_GT(ops.size(), 10000u);
    EXPECT_LT(longest, 120u);
    EXPECT_LT(total, 2'000'000u);
    EXPECT_NE(kiln::pickle::format_op(ops.back()).find("[depth "), std::string::npos);
}
