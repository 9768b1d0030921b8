#include "pickle/text.hpp"

#include <cstdint>
#include <cstring>

#include "util/utf8.hpp"

namespace kiln::pickle {

bool is_ascii(std::string_view s) {
    std::size_t i = 0, n = s.size();
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        if (w & 0x8080808080808080ULL) return false;
    }
    for (; i < n; ++i)
        if (static_cast<unsigned char>(s[i]) & 0x80) return false;
    return true;
}

bool valid_utf8(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    std::size_t i = 0, n = s.size();
    while (i < n) {
        // ASCII runs dominate source code and debug lines: 32 bytes, then 8 bytes at a time.
        while (i + 32 <= n) {
            std::uint64_t a, b, c, d;
            std::memcpy(&a, p + i, 8);
            std::memcpy(&b, p + i + 8, 8);
            std::memcpy(&c, p + i + 16, 8);
            std::memcpy(&d, p + i + 24, 8);
            if ((a | b | c | d) & 0x8080808080808080ULL) break;
            i += 32;
        }
        if (i == n) break;
        if (i + 8 <= n) {
            std::uint64_t w;
            std::memcpy(&w, p + i, 8);
            if (!(w & 0x8080808080808080ULL)) {
                i += 8;
                continue;
            }
        }
        unsigned c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        const std::size_t len = utf8_sequence(s, i, Surrogates::allow);
        if (len == 0) return false;
        i += len;
    }
    return true;
}

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

std::string latin1_to_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) append_utf8(out, static_cast<unsigned char>(c));
    return out;
}

namespace {
int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
bool parse_hex(std::string_view s, std::size_t pos, std::size_t digits, char32_t& out) {
    if (s.size() - pos < digits) return false;
    out = 0;
    for (std::size_t k = 0; k < digits; ++k) {
        int h = hex_value(s[pos + k]);
        if (h < 0) return false;
        out = (out << 4) | static_cast<char32_t>(h);
    }
    return true;
}
}  // namespace

const char* decode_raw_unicode_escape(std::string_view s, std::string& out) {
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        char c = s[i];
        if (c == '\\' && i + 1 < s.size() && (s[i + 1] == 'u' || s[i + 1] == 'U')) {
            // An odd run of backslashes escapes; Python's codec counts only the last one.
            std::size_t digits = s[i + 1] == 'u' ? 4 : 8;
            char32_t cp;
            if (!parse_hex(s, i + 2, digits, cp)) return "truncated \\uXXXX escape";
            if (cp > 0x10FFFF) return "\\Uxxxxxxxx out of range";
            append_utf8(out, cp);
            i += 2 + digits;
            continue;
        }
        append_utf8(out, static_cast<unsigned char>(c));
        ++i;
    }
    return nullptr;
}

std::string strict_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        std::size_t n = utf8_sequence(s, i);
        if (n == 0 && static_cast<unsigned char>(s[i]) == 0xED && s.size() - i >= 3 &&
            (static_cast<unsigned char>(s[i + 1]) & 0xE0) == 0xA0 &&
            (static_cast<unsigned char>(s[i + 2]) & 0xC0) == 0x80) {
            out += "\xEF\xBF\xBD";  // one encoded surrogate: one replacement character
            i += 3;
            continue;
        }
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
            continue;
        }
        out.append(s.substr(i, n));
        i += n;
    }
    return out;
}

std::string_view utf8_prefix(std::string_view s, std::size_t n) {
    if (n >= s.size()) return s;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return s.substr(0, n);
}

const char* decode_string_escapes(std::string_view q, std::string& out) {
    if (q.size() < 2 || (q.front() != '\'' && q.front() != '"') || q.back() != q.front())
        return "the STRING argument is not quoted";
    std::string_view s = q.substr(1, q.size() - 2);
    std::string bytes;
    bytes.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c != '\\') {
            bytes += c;
            continue;
        }
        if (++i == s.size()) return "trailing backslash in STRING";
        char e = s[i];
        switch (e) {
            case '\n': break;
            case '\\': bytes += '\\'; break;
            case '\'': bytes += '\''; break;
            case '"': bytes += '"'; break;
            case 'a': bytes += '\a'; break;
            case 'b': bytes += '\b'; break;
            case 'f': bytes += '\f'; break;
            case 'n': bytes += '\n'; break;
            case 'r': bytes += '\r'; break;
            case 't': bytes += '\t'; break;
            case 'v': bytes += '\v'; break;
            case 'x': {
                char32_t v;
                if (!parse_hex(s, i + 1, 2, v)) return "invalid \\x escape in STRING";
                bytes += static_cast<char>(v);
                i += 2;
                break;
            }
            default:
                if (e >= '0' && e <= '7') {
                    unsigned v = 0;
                    std::size_t k = 0;
                    for (; k < 3 && i + k < s.size() && s[i + k] >= '0' && s[i + k] <= '7'; ++k)
                        v = v * 8 + static_cast<unsigned>(s[i + k] - '0');
                    bytes += static_cast<char>(v & 0xFF);
                    i += k - 1;
                } else {
                    bytes += '\\';  // unknown escapes stay as written, as in Python
                    bytes += e;
                }
        }
    }
    // Python 3 reads protocol-0 str with encoding="ASCII" by default; we accept any byte as latin-1.
    out = is_ascii(bytes) ? std::move(bytes) : latin1_to_utf8(bytes);
    return nullptr;
}

}  // namespace kiln::pickle
