#include "util/utf8.hpp"

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

}  // namespace kiln
