#pragma once
// Tokens of the guard-expression grammar (a tiny subset of Python's).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace kiln::guards {

enum class Tok : std::uint8_t {
    integer,
    floating,
    name,
    string,
    plus,
    minus,
    star,
    dslash,
    slash,
    percent,
    dstar,
    lt,
    le,
    gt,
    ge,
    eq,
    ne,
    lparen,
    rparen,
    lbracket,
    rbracket,
    comma,
    dot,
    and_and,
    or_or,
    bang,  // &&, ||, ! (tuning-spec restrictions only)
    end,
};

struct Token {
    Tok kind = Tok::end;
    std::uint32_t begin = 0;  // byte offset into the source
    std::uint32_t end = 0;
    std::string text;  // the literal's digits, the name, or the string's contents
};

// Splits the whole source; errors name the offending character and its 1-based column.
// `c_logic` admits &&, || and ! (restrictions accept them; torch never prints them).
Result<std::vector<Token>> tokenize(std::string_view source, bool c_logic = false);

const char* tok_name(Tok t);

}  // namespace kiln::guards
