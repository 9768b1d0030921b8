#include "util/utf8.hpp"

#include <cstdio>

namespace kiln {

std::size_t utf8_sequence(std::string_view s, std::size_t i, Surrogates surrogates) {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned c = b(0);
    if (c < 0x80) return 1;
    std::size_t len;
    unsigned lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) {
        len = 3;
        lo = 0xA0;  // no overlong
    } else if (c == 0xED) {
        len = 3;
        if (surrogates == Surrogates::refuse) hi = 0x9F;
    } else if (c >= 0xE1 && c <= 0xEF) len = 3;
    else if (c == 0xF0) {
        len = 4;
        lo = 0x90;  // no overlong
    } else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else if (c == 0xF4) {
        len = 4;
        hi = 0x8F;  // nothing above U+10FFFF
    } else return 0;
    if (s.size() - i < len || b(1) < lo || b(1) > hi) return 0;
    for (std::size_t k = 2; k < len; ++k)
        if ((b(k) & 0xC0) != 0x80) return 0;
    return len;
}

std::size_t first_invalid_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        std::size_t n = utf8_sequence(s, i);
        if (n == 0) return i;
        i += n;
    }
    return std::string_view::npos;
}

std::string printable_name(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    auto hex = [&](const char* format, unsigned v) {
        char buf[12];
        std::snprintf(buf, sizeof buf, format, v);
        out += buf;
    };
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            if (c == '\\') out += "\\\\";
            else if (c == '\n') out += "\\n";
            else if (c == '\r') out += "\\r";
            else if (c == '\t') out += "\\t";
            else if (c < 0x20 || c == 0x7f) hex("\\x%02x", c);
            else out += static_cast<char>(c);
            ++i;
            continue;
        }
        const std::size_t n = utf8_sequence(s, i);
        if (n == 0) {
            hex("\\x%02x", c);
            ++i;
            continue;
        }
        unsigned cp = n == 2 ? c & 0x1Fu : n == 3 ? c & 0x0Fu : c & 0x07u;
        for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3Fu);
        const bool control = (cp >= 0x80 && cp <= 0x9F) || cp == 0x200E || cp == 0x200F ||
                             (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
        if (control) hex("\\u%04x", cp);
        else out.append(s, i, n);
        i += n;
    }
    return out;
}

std::string shortened(std::string_view s, std::size_t max_bytes) {
    if (s.size() <= max_bytes) return std::string(s);
    std::size_t end = 0;
    while (end < max_bytes) {
        std::size_t n = utf8_sequence(s, end, Surrogates::allow);
        if (n == 0) n = 1;  // a stray byte is one unit
        if (end + n > max_bytes) break;
        end += n;
    }
    return std::string(s.substr(0, end)) + "…";
}

}  // namespace kiln
