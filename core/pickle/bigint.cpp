#include "pickle/bigint.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "pickle/value.hpp"

namespace kiln::pickle {
namespace {

bool high_bit(std::string_view le) { return !le.empty() && (static_cast<unsigned char>(le.back()) & 0x80); }

// Magnitude of a two's-complement little-endian number as 32-bit limbs (little-endian).
std::vector<std::uint32_t> magnitude_limbs(std::string_view le, bool negative) {
    std::vector<std::uint8_t> b(le.begin(), le.end());
    if (negative) {  // two's complement negate: invert and add one
        unsigned carry = 1;
        for (auto& x : b) {
            unsigned v = static_cast<std::uint8_t>(~x) + carry;
            x = static_cast<std::uint8_t>(v);
            carry = v >> 8;
        }
    }
    std::vector<std::uint32_t> limbs((b.size() + 3) / 4, 0);
    for (std::size_t i = 0; i < b.size(); ++i) limbs[i / 4] |= std::uint32_t{b[i]} << (8 * (i % 4));
    while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
    return limbs;
}

}  // namespace

std::string_view minimal_le(std::string_view le) {
    while (le.size() > 1) {
        auto top = static_cast<unsigned char>(le.back());
        auto next = static_cast<unsigned char>(le[le.size() - 2]);
        bool redundant = (top == 0x00 && !(next & 0x80)) || (top == 0xFF && (next & 0x80));
        if (!redundant) break;
        le.remove_suffix(1);
    }
    return le;
}

bool le_to_int64(std::string_view le, std::int64_t& out) {
    if (le.size() > 8) return false;
    if (le.empty()) {
        out = 0;
        return true;
    }
    std::uint64_t v = high_bit(le) ? ~std::uint64_t{0} : 0;
    for (std::size_t k = le.size(); k-- > 0;) v = (v << 8) | static_cast<unsigned char>(le[k]);
    out = static_cast<std::int64_t>(v);
    return true;
}

const char* parse_decimal_int(std::string_view text, std::int64_t& small, std::string& big_le) {
    std::string_view t = text;
    while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r')) t.remove_suffix(1);
    bool neg = false;
    if (!t.empty() && (t.front() == '-' || t.front() == '+')) {
        neg = t.front() == '-';
        t.remove_prefix(1);
    }
    if (t.empty()) return "no digits in the integer text";
    if (t.size() > 4300) return "integer text exceeds 4300 digits (Python's limit)";
    std::vector<std::uint32_t> limbs;  // magnitude, little-endian base 2^32
    for (char c : t) {
        if (c < '0' || c > '9') return "invalid character in the integer text";
        std::uint64_t carry = static_cast<std::uint64_t>(c - '0');
        for (auto& l : limbs) {
            std::uint64_t v = std::uint64_t{l} * 10 + carry;
            l = static_cast<std::uint32_t>(v);
            carry = v >> 32;
        }
        if (carry) limbs.push_back(static_cast<std::uint32_t>(carry));
    }
    // Two's-complement bytes of +-magnitude with one spare byte for the sign.
    std::string le(limbs.size() * 4 + 1, '\0');
    for (std::size_t i = 0; i < limbs.size() * 4; ++i)
        le[i] = static_cast<char>((limbs[i / 4] >> (8 * (i % 4))) & 0xFF);
    if (neg) {
        unsigned carry = 1;
        for (auto& x : le) {
            unsigned v = static_cast<unsigned char>(~static_cast<unsigned char>(x)) + carry;
            x = static_cast<char>(v);
            carry = v >> 8;
        }
    }
    std::string_view m = minimal_le(le);
    if (le_to_int64(m, small)) {
        big_le.clear();
        return nullptr;
    }
    big_le.assign(m);
    return nullptr;
}

bool Int::negative() const { return fits_int64() ? small < 0 : high_bit(big_le); }

std::string Int::to_decimal() const {
    if (fits_int64()) return std::to_string(small);
    bool neg = negative();
    auto limbs = magnitude_limbs(big_le, neg);
    std::string out;
    if (big_le.size() > 2048) {  // exact but linear: hexadecimal
        static const char* hex = "0123456789abcdef";
        for (std::size_t i = limbs.size(); i-- > 0;)
            for (int s = 28; s >= 0; s -= 4) out += hex[(limbs[i] >> s) & 0xF];
        out.erase(0, std::min(out.find_first_not_of('0'), out.size() - 1));
        out.insert(0, neg ? "-0x" : "0x");
        return out;
    }
    std::vector<std::uint32_t> chunks;  // base 10^9 digits, least significant first
    while (!limbs.empty()) {            // repeated division by 10^9
        std::uint64_t rem = 0;
        for (std::size_t i = limbs.size(); i-- > 0;) {
            std::uint64_t cur = (rem << 32) | limbs[i];
            limbs[i] = static_cast<std::uint32_t>(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
        chunks.push_back(static_cast<std::uint32_t>(rem));
    }
    if (neg) out.push_back('-');
    char buf[16];
    for (std::size_t i = chunks.size(); i-- > 0;) {
        std::snprintf(buf, sizeof buf, i + 1 == chunks.size() ? "%u" : "%09u", chunks[i]);
        out.append(buf);
    }
    if (chunks.empty()) out.push_back('0');
    return out;
}

}  // namespace kiln::pickle
