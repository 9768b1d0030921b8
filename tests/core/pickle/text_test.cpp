// valid_utf8 decides whether a pickled str is accepted (Python's decoder with surrogatepass).
#include <gtest/gtest.h>

#include <string>

#include "pickle/text.hpp"

using kiln::pickle::valid_utf8;

TEST(Utf8, AsciiOfEveryLengthAroundTheBlockSizes) {
    // The fast paths take 32 and 8 bytes at a time: every length and tail around them.
    for (std::size_t n = 0; n <= 100; ++n) {
        std::string s(n, 'a');
        EXPECT_TRUE(valid_utf8(s)) << n;
        // A view that ends exactly at a block boundary must not look past its end.
        std::string padded = s + "\xff";
        EXPECT_TRUE(valid_utf8(std::string_view(padded).substr(0, n))) << n;
    }
}

TEST(Utf8, MultibyteAnywhereAndInvalidSequencesAnywhere) {
    const std::string good[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x94\xa5", "\xed\xa0\x80" /* surrogatepass */};
    const std::string bad[] = {"\xc0\xaf", "\xe0\x80\x80", "\xf5\x80\x80\x80", "\x80", "\xc3", "\xf0\x9f\x94", "\xff"};
    for (std::size_t pos : {0u, 1u, 7u, 8u, 31u, 32u, 33u, 63u, 64u, 70u}) {
        for (const auto& g : good) {
            std::string s = std::string(pos, 'x') + g + std::string(40, 'y');
            EXPECT_TRUE(valid_utf8(s)) << pos;
        }
        for (const auto& b : bad) {
            std::string s = std::string(pos, 'x') + b + std::string(40, 'y');
            EXPECT_FALSE(valid_utf8(s)) << pos;
            EXPECT_FALSE(valid_utf8(std::string(pos, 'x') + b)) << pos << " at the end";
        }
    }
}
