#pragma once
// Hand-written scanning for text read from a cache, a log or a child's output. Core uses no <regex>
// (ctest `layering.core_has_no_regex`): libstdc++'s executor recurses once per character,
// so one long line or a long run of spaces in a hostile file overflows the stack (issue 42). Each
// helper here is one forward pass; a caller spells its pattern out with them, the regex it stands for
// in a comment.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln::scan {

// ECMAScript's \w, \s and \d in the "C" locale.
constexpr bool is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The end of the run of characters satisfying `pred` that starts at `pos` (`pos` itself when there is
// none, and for any pos >= s.size()).
template <class Pred>
constexpr std::size_t skip_while(std::string_view s, std::size_t pos, Pred pred) {
    while (pos < s.size() && pred(s[pos])) ++pos;
    return pos;
}
constexpr std::size_t skip_spaces(std::string_view s, std::size_t pos) { return skip_while(s, pos, is_space); }
constexpr std::size_t skip_word(std::string_view s, std::size_t pos) { return skip_while(s, pos, is_word); }
constexpr std::size_t skip_digits(std::string_view s, std::size_t pos) { return skip_while(s, pos, is_digit); }
// [ \t]*
constexpr std::size_t skip_blanks(std::string_view s, std::size_t pos) {
    return skip_while(s, pos, [](char c) { return c == ' ' || c == '\t'; });
}

// Whether `s` holds `lit` at `pos` (false past the end).
constexpr bool has_at(std::string_view s, std::size_t pos, std::string_view lit) {
    return pos <= s.size() && s.substr(pos, lit.size()) == lit;
}

// `s` without the \s run at its end.
constexpr std::string_view trim_end(std::string_view s) {
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

// The balanced {...} that starts at text[open], nested braces counted and braces inside '...' or
// "..." (backslash escapes honoured) ignored; empty when text[open] is not '{' or it never closes.
// The one brace matcher of core (issue 44): Python dict literals in Inductor's modules.
std::string_view balanced_braces(std::string_view text, std::size_t open);

// `'name':\s*'([^']+)'` (marker = "'name':"): the non-empty single-quoted string after the first
// occurrence of `marker` that is followed by one; nullopt when none is.
std::optional<std::string_view> quoted_after(std::string_view text, std::string_view marker);

// The non-negative decimal `digits` (a run is_digit accepts) as a number; nullopt when empty or when it
// does not fit an int64 (a hostile file's 30-digit num_warps is no number, never an exception).
std::optional<std::int64_t> decimal_value(std::string_view digits);

}  // namespace kiln::scan
