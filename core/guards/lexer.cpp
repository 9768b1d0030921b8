#include "guards/lexer.hpp"

#include <cctype>
#include <cstdio>

namespace kiln::guards {

const char* tok_name(Tok t) {
    switch (t) {
        case Tok::integer: return "integer";
        case Tok::floating: return "float";
        case Tok::name: return "name";
        case Tok::string: return "string";
        case Tok::plus: return "'+'";
        case Tok::minus: return "'-'";
        case Tok::star: return "'*'";
        case Tok::dslash: return "'//'";
        case Tok::slash: return "'/'";
        case Tok::percent: return "'%'";
        case Tok::dstar: return "'**'";
        case Tok::lt: return "'<'";
        case Tok::le: return "'<='";
        case Tok::gt: return "'>'";
        case Tok::ge: return "'>='";
        case Tok::eq: return "'=='";
        case Tok::ne: return "'!='";
        case Tok::lparen: return "'('";
        case Tok::rparen: return "')'";
        case Tok::lbracket: return "'['";
        case Tok::rbracket: return "']'";
        case Tok::comma: return "','";
        case Tok::dot: return "'.'";
        case Tok::and_and: return "'&&'";
        case Tok::or_or: return "'||'";
        case Tok::bang: return "'!'";
        case Tok::end: return "end of expression";
    }
    return "?";
}

namespace {

Error lex_error(std::string msg, std::size_t pos) {
    return make_error(Errc::parse, std::move(msg) + " at column " + std::to_string(pos + 1), "guards_expr");
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

// Python number: digits with optional '_' separators, an optional fraction and exponent.
Result<Token> lex_number(std::string_view s, std::size_t& i) {
    std::size_t start = i;
    std::string digits;
    bool is_float = false;
    auto take_digits = [&] {
        while (i < s.size() && (is_digit(s[i]) || (s[i] == '_' && i + 1 < s.size() && is_digit(s[i + 1])))) {
            if (s[i] != '_') digits.push_back(s[i]);
            ++i;
        }
    };
    take_digits();
    if (i < s.size() && s[i] == '.' && !(i + 1 < s.size() && is_name_start(s[i + 1]))) {
        is_float = true;
        digits.push_back(s[i++]);
        take_digits();
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t save = i;
        std::string exp = "e";
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) exp.push_back(s[i++]);
        if (i < s.size() && is_digit(s[i])) {
            is_float = true;
            digits += exp;
            take_digits();
        } else {
            i = save;
        }
    }
    if (i < s.size() && is_name_char(s[i]))
        return lex_error("malformed number '" + std::string(s.substr(start, i + 1 - start)) + "'", start);
    if (!is_float && digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos)
        return lex_error("integer literal with a leading zero '" + digits + "'", start);
    return Token{is_float ? Tok::floating : Tok::integer, static_cast<std::uint32_t>(start),
                 static_cast<std::uint32_t>(i), std::move(digits)};
}

Result<Token> lex_string(std::string_view s, std::size_t& i) {
    std::size_t start = i;
    char quote = s[i++];
    std::string text;
    while (i < s.size() && s[i] != quote) {
        if (s[i] == '\\' || s[i] == '\n') return lex_error("unsupported character in string literal", i);
        text.push_back(s[i++]);
    }
    if (i >= s.size()) return lex_error("unterminated string literal", start);
    ++i;
    return Token{Tok::string, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(i), std::move(text)};
}

}  // namespace

Result<std::vector<Token>> tokenize(std::string_view s, bool c_logic) {
    std::vector<Token> out;
    std::size_t i = 0;
    auto op = [&](Tok t, std::size_t len) {
        out.push_back(Token{t, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i + len), {}});
        i += len;
    };
    while (i < s.size()) {
        char c = s[i];
        char n = i + 1 < s.size() ? s[i + 1] : '\0';
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++i;
        } else if (is_digit(c) || (c == '.' && is_digit(n))) {
            KILN_TRY(Token t, lex_number(s, i));
            out.push_back(std::move(t));
        } else if (is_name_start(c)) {
            std::size_t start = i;
            while (i < s.size() && is_name_char(s[i])) ++i;
            out.push_back(Token{Tok::name, static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(i),
                                std::string(s.substr(start, i - start))});
        } else if (c == '\'' || c == '"') {
            KILN_TRY(Token t, lex_string(s, i));
            out.push_back(std::move(t));
        } else if (c == '*' && n == '*') {
            op(Tok::dstar, 2);
        } else if (c == '/' && n == '/') {
            op(Tok::dslash, 2);
        } else if (c == '<' && n == '=') {
            op(Tok::le, 2);
        } else if (c == '>' && n == '=') {
            op(Tok::ge, 2);
        } else if (c == '=' && n == '=') {
            op(Tok::eq, 2);
        } else if (c == '!' && n == '=') {
            op(Tok::ne, 2);
        } else if (c_logic && c == '&' && n == '&') {
            op(Tok::and_and, 2);
        } else if (c_logic && c == '|' && n == '|') {
            op(Tok::or_or, 2);
        } else if (c_logic && c == '!') {
            op(Tok::bang, 1);
        } else if (c == '+') {
            op(Tok::plus, 1);
        } else if (c == '-') {
            op(Tok::minus, 1);
        } else if (c == '*') {
            op(Tok::star, 1);
        } else if (c == '/') {
            op(Tok::slash, 1);
        } else if (c == '%') {
            op(Tok::percent, 1);
        } else if (c == '<') {
            op(Tok::lt, 1);
        } else if (c == '>') {
            op(Tok::gt, 1);
        } else if (c == '(') {
            op(Tok::lparen, 1);
        } else if (c == ')') {
            op(Tok::rparen, 1);
        } else if (c == '[') {
            op(Tok::lbracket, 1);
        } else if (c == ']') {
            op(Tok::rbracket, 1);
        } else if (c == ',') {
            op(Tok::comma, 1);
        } else if (c == '.') {
            op(Tok::dot, 1);
        } else {
            char shown[8];
            if (std::isprint(static_cast<unsigned char>(c))) std::snprintf(shown, sizeof shown, "%c", c);
            else std::snprintf(shown, sizeof shown, "\\x%02x", static_cast<unsigned char>(c));
            return lex_error(std::string("unexpected character '") + shown + "'", i);
        }
    }
    out.push_back(Token{Tok::end, static_cast<std::uint32_t>(s.size()), static_cast<std::uint32_t>(s.size()), {}});
    return out;
}

}  // namespace kiln::guards
