// util/text_scan: the hand-written scanning core uses instead of regexes (issue 42), and the one
// balanced-brace matcher (issue 44).
#include <gtest/gtest.h>

#include <string>

#include "util/text_scan.hpp"

using namespace kiln::scan;

TEST(TextScan, ClassesAreEcmaScriptsInTheCLocale) {
    for (char c : std::string("azAZ09_")) EXPECT_TRUE(is_word(c)) << c;
    for (char c : std::string(" -.'\"\t\x80")) EXPECT_FALSE(is_word(c)) << c;
    for (char c : std::string(" \t\n\v\f\r")) EXPECT_TRUE(is_space(c));
    for (char c : std::string("a_\x85\xa0")) EXPECT_FALSE(is_space(c));
}

TEST(TextScan, SkipsStopAtTheFirstOtherCharacterOrTheEnd) {
    const std::string s = "  \t\nnum_warps =  42,";
    EXPECT_EQ(skip_spaces(s, 0), 4u);
    EXPECT_EQ(skip_word(s, 4), 13u);
    EXPECT_EQ(skip_blanks(s, 13), 14u);
    EXPECT_EQ(skip_digits(s, 17), 19u);
    EXPECT_EQ(skip_digits(s, 0), 0u);
    EXPECT_EQ(skip_spaces(s, s.size()), s.size());
    EXPECT_EQ(skip_spaces(s, s.size() + 5), s.size() + 5);  // past the end: nothing to skip
    EXPECT_TRUE(has_at(s, 4, "num_"));
    EXPECT_FALSE(has_at(s, 17, "42,x"));
    EXPECT_FALSE(has_at(s, s.size() + 1, ""));
    EXPECT_TRUE(has_at(s, s.size(), ""));
    EXPECT_EQ(trim_end("ab \r\n\t"), "ab");
    EXPECT_EQ(trim_end("   "), "");
}

TEST(TextScan, BalancedBracesCountNestingAndSkipQuotes) {
    const std::string s = "x = {'a': {'b': '}'}, \"c\": '\\'}', 'd': {}} tail";
    const std::size_t open = s.find('{');
    EXPECT_EQ(balanced_braces(s, open), s.substr(open, s.find(" tail") - open));
    EXPECT_EQ(balanced_braces(s, s.find("{'b'")), "{'b': '}'}");
    EXPECT_EQ(balanced_braces(s, 0), "");           // not at a '{'
    EXPECT_EQ(balanced_braces(s, s.size()), "");    // past the end
    EXPECT_EQ(balanced_braces("{'a': {}", 0), "");  // never closes
    EXPECT_EQ(balanced_braces("{'}", 0), "");       // the quote never closes
    EXPECT_EQ(balanced_braces("{'\\", 0), "");      // an escape at the very end
}

TEST(TextScan, BalancedBracesOfDeepNestingAndLongTextNeedNoStack) {
    const std::string deep = std::string(200000, '{') + std::string(200000, '}');
    EXPECT_EQ(balanced_braces(deep, 0).size(), deep.size());
    const std::string spaces = "{" + std::string(1 << 20, ' ') + "}";
    EXPECT_EQ(balanced_braces(spaces, 0).size(), spaces.size());
}

TEST(TextScan, QuotedAfterTakesTheFirstNonEmptyString) {
    EXPECT_EQ(quoted_after("'kernel_name': 'triton_mm'", "'kernel_name':"), "triton_mm");
    EXPECT_EQ(quoted_after("'kernel_name':\n\t'a b'", "'kernel_name':"), "a b");
    // An empty string or no string at the first: the next one.
    EXPECT_EQ(quoted_after("'k': '', 'k': x, 'k': 'y'", "'k':"), "y");
    EXPECT_EQ(quoted_after("'k': 'never closed", "'k':"), std::nullopt);
    EXPECT_EQ(quoted_after("no marker", "'k':"), std::nullopt);
    EXPECT_EQ(quoted_after("'k':" + std::string(100000, ' ') + "'v'", "'k':"), "v");
}

TEST(TextScan, DecimalValueRefusesWhatDoesNotFit) {
    EXPECT_EQ(decimal_value("0"), 0);
    EXPECT_EQ(decimal_value("9223372036854775807"), INT64_MAX);
    EXPECT_EQ(decimal_value("9223372036854775808"), std::nullopt);
    EXPECT_EQ(decimal_value("123456789012345678901234567890"), std::nullopt);
    EXPECT_EQ(decimal_value(""), std::nullopt);
    EXPECT_EQ(decimal_value("12x"), std::nullopt);
    EXPECT_EQ(decimal_value("-1"), std::nullopt);
}
