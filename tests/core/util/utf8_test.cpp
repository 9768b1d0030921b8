// The one UTF-8 step shared by the JSON writer and the pickle decoder: Unicode's well-formed table.
#include <gtest/gtest.h>

#include "util/utf8.hpp"

namespace {

using kiln::Surrogates;
using kiln::utf8_sequence;

TEST(Utf8, WellFormedSequencesAndTheirLengths) {
    EXPECT_EQ(utf8_sequence("a", 0), 1u);
    EXPECT_EQ(utf8_sequence("\xC3\xA9", 0), 2u);          // é
    EXPECT_EQ(utf8_sequence("\xE2\x82\xAC", 0), 3u);      // €
    EXPECT_EQ(utf8_sequence("\xF0\x9F\x94\xA5", 0), 4u);  // U+1F525
    EXPECT_EQ(utf8_sequence("x\xC3\xA9", 1), 2u);
}

TEST(Utf8, OverlongsTruncationAndOutOfRangeAreRefused) {
    EXPECT_EQ(utf8_sequence("\xC0\x80", 0), 0u);          // overlong NUL
    EXPECT_EQ(utf8_sequence("\xE0\x80\x80", 0), 0u);      // overlong
    EXPECT_EQ(utf8_sequence("\xF0\x80\x80\x80", 0), 0u);  // overlong
    EXPECT_EQ(utf8_sequence("\xF4\x90\x80\x80", 0), 0u);  // above U+10FFFF
    EXPECT_EQ(utf8_sequence("\xF5\x80\x80\x80", 0), 0u);
    EXPECT_EQ(utf8_sequence("\xE2\x82", 0), 0u);  // cut short
    EXPECT_EQ(utf8_sequence("\x80", 0), 0u);      // a continuation byte first
    EXPECT_EQ(utf8_sequence("\xE2\x28\xA1", 0), 0u);
}

TEST(Utf8, SurrogatesOnlyWhenAllowed) {
    EXPECT_EQ(utf8_sequence("\xED\xA0\x80", 0), 0u);                     // U+D800: JSON and nlohmann refuse it
    EXPECT_EQ(utf8_sequence("\xED\xA0\x80", 0, Surrogates::allow), 3u);  // Python's surrogatepass
    EXPECT_EQ(utf8_sequence("\xED\x9F\xBF", 0), 3u);                     // U+D7FF either way
}

}  // namespace
