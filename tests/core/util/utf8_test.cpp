// The one UTF-8 step shared by the JSON writer and the pickle decoder: Unicode's well-formed table.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "util/utf8.hpp"

namespace {

using kiln::first_invalid_utf8;
using kiln::printable_name;
using kiln::shortened;
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

// Names from a blob or a shared cache are printed through printable_name: nothing a terminal acts on
// (escape sequences, newlines, C1 controls, bidi overrides) gets through raw; text stays readable.
TEST(Utf8, PrintableNameEscapesWhatATerminalWouldActOn) {
    EXPECT_EQ(printable_name("fabc/ok.pkl"), "fabc/ok.pkl");
    EXPECT_EQ(printable_name("caf\xC3\xA9 \xE6\x97\xA5"), "caf\xC3\xA9 \xE6\x97\xA5");  // UTF-8 text stays
    EXPECT_EQ(printable_name("a\x1b]0;t\x07"
                             "b"),
              R"(a\x1b]0;t\x07b)");
    EXPECT_EQ(printable_name("a\nb\rc\td"), R"(a\nb\rc\td)");
    EXPECT_EQ(printable_name("back\\slash"), R"(back\\slash)");  // so an escape cannot be forged
    EXPECT_EQ(printable_name(std::string("n\0l\x7f", 4)), R"(n\x00l\x7f)");
    EXPECT_EQ(printable_name("\xC2\x9B"
                             "2J"),
              R"(\u009b2J)");                                                // C1 CSI
    EXPECT_EQ(printable_name("x\xE2\x80\xAEgpj.exe"), R"(x\u202egpj.exe)");  // right-to-left override
    EXPECT_EQ(printable_name("bad\xFF\xC3"), R"(bad\xff\xc3)");              // not UTF-8: each byte
}

TEST(Utf8, FirstInvalidByte) {
    EXPECT_EQ(first_invalid_utf8("plain \xC3\xA9"), std::string_view::npos);
    EXPECT_EQ(first_invalid_utf8("ab\xFF"
                                 "cd"),
              2u);
    EXPECT_EQ(first_invalid_utf8("\xED\xA0\x80"), 0u);  // a surrogate: JSON refuses it
}

TEST(Utf8, ShortenedCutsAtACharacterBoundary) {
    EXPECT_EQ(shortened("short", 10), "short");
    EXPECT_EQ(shortened("abcdef", 3), "abc…");
    // "é" is two bytes: a cut after 2 bytes would leave half of it, so it stops before.
    EXPECT_EQ(shortened("a\xC3\xA9z", 2), "a…");
    EXPECT_EQ(shortened("a\xC3\xA9z", 3), "a\xC3\xA9…");
    EXPECT_EQ(first_invalid_utf8(shortened("\xE6\xBC\xA2\xE5\xAD\x97", 4)), std::string_view::npos);
}

}  // namespace
