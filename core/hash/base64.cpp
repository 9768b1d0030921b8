#include "hash/base64.hpp"

#include <array>
#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kiln::hash {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<std::int8_t, 256> make_table() {
    std::array<std::int8_t, 256> t{};
    for (auto& v : t) v = -1;
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
    return t;
}
constexpr auto kTable = make_table();

// The decode tables of the hot loop: each character's 6 bits already shifted into place for its
// position in a quad, and 0x01000000 for a character outside the alphabet, so a quad is four
// lookups, three ORs and one test.
constexpr std::array<std::uint32_t, 256> make_shifted(int shift) {
    std::array<std::uint32_t, 256> t{};
    for (int c = 0; c < 256; ++c) {
        std::int8_t v = kTable[static_cast<std::size_t>(c)];
        t[static_cast<std::size_t>(c)] = v < 0 ? 0x01000000u : static_cast<std::uint32_t>(v) << shift;
    }
    return t;
}
constexpr auto kD0 = make_shifted(18), kD1 = make_shifted(12), kD2 = make_shifted(6), kD3 = make_shifted(0);

#if defined(__x86_64__)
// 32 characters to 24 bytes per step with AVX2 (Muła and Lemire's decoder, as in aklomp/base64):
// classify by nibble lookups, add the per-class offset, pack 4 x 6 bits into 3 bytes. Stops at
// the first block with a character outside the alphabet (the scalar loop then locates it) and
// leaves `min_tail` characters for the scalar loop. Writes 32 bytes per 24 produced: the caller
// keeps 8 bytes of room past the decoded output of the blocks it allows.
__attribute__((target("avx2"))) std::size_t decode_avx2(const unsigned char* in, std::size_t n, char* out) {
    const __m256i lut_lo = _mm256_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A,
                                            0x1B, 0x1B, 0x1B, 0x1A, 0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
                                            0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A);
    const __m256i lut_hi = _mm256_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10,
                                            0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08,
                                            0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10);
    const __m256i lut_roll = _mm256_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 19, 4,
                                              -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i mask_2f = _mm256_set1_epi8(0x2f);
    const __m256i pack_shuffle = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1, 2, 1, 0, 6, 5,
                                                  4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i pack_lanes = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, -1, -1);
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i str = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
        const __m256i hi_nibbles = _mm256_and_si256(_mm256_srli_epi32(str, 4), mask_2f);
        const __m256i lo_nibbles = _mm256_and_si256(str, mask_2f);
        const __m256i hi = _mm256_shuffle_epi8(lut_hi, hi_nibbles);
        const __m256i lo = _mm256_shuffle_epi8(lut_lo, lo_nibbles);
        if (!_mm256_testz_si256(lo, hi)) break;
        const __m256i eq_2f = _mm256_cmpeq_epi8(str, mask_2f);
        str = _mm256_add_epi8(str, _mm256_shuffle_epi8(lut_roll, _mm256_add_epi8(eq_2f, hi_nibbles)));
        const __m256i ab_bc = _mm256_maddubs_epi16(str, _mm256_set1_epi32(0x01400140));
        __m256i packed = _mm256_madd_epi16(ab_bc, _mm256_set1_epi32(0x00011000));
        packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(packed, pack_shuffle), pack_lanes);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i / 4 * 3), packed);
    }
    return i;
}

bool have_avx2() {
    static const bool yes = __builtin_cpu_supports("avx2");
    return yes;
}
#endif

}  // namespace

std::string base64_encode(std::string_view in) {
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    size_t i = 0;
    auto byte = [&](size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(in[k])); };
    for (; i + 3 <= in.size(); i += 3) {
        std::uint32_t v = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
        out += kAlphabet[v >> 18 & 63];
        out += kAlphabet[v >> 12 & 63];
        out += kAlphabet[v >> 6 & 63];
        out += kAlphabet[v & 63];
    }
    if (size_t rest = in.size() - i; rest > 0) {
        std::uint32_t v = byte(i) << 16 | (rest == 2 ? byte(i + 1) << 8 : 0);
        out += kAlphabet[v >> 18 & 63];
        out += kAlphabet[v >> 12 & 63];
        out += rest == 2 ? kAlphabet[v >> 6 & 63] : '=';
        out += '=';
    }
    return out;
}

Result<std::string> base64_decode(std::string_view in) {
    if (in.size() % 4 != 0)
        return make_error(Errc::parse, "base64 length " + std::to_string(in.size()) + " is not a multiple of 4");
    size_t pad = in.ends_with("==") ? 2 : in.ends_with('=') ? 1 : 0;
    std::string out(in.size() / 4 * 3, '\0');
    char* o = out.data();
    // Whole quads first (the hot loop: values reach megabytes), then the padded tail.
    size_t body = in.empty() ? 0 : in.size() - 4;
    const auto* p = reinterpret_cast<const unsigned char*>(in.data());
    size_t i = 0;
#if defined(__x86_64__)
    // Blocks whose 32-byte stores stay inside the output: 3/4 of the input, less the last quad.
    if (body >= 64 && have_avx2()) {
        i = decode_avx2(p, body - 48, o);
        o += i / 4 * 3;
    }
#endif
    for (; i + 8 <= body; i += 8) {  // two quads a step
        std::uint32_t v = kD0[p[i]] | kD1[p[i + 1]] | kD2[p[i + 2]] | kD3[p[i + 3]];
        std::uint32_t w = kD0[p[i + 4]] | kD1[p[i + 5]] | kD2[p[i + 6]] | kD3[p[i + 7]];
        if ((v | w) & 0x01000000u) break;  // the quad-at-a-time loop below finds and reports it
        o[0] = static_cast<char>(v >> 16);
        o[1] = static_cast<char>(v >> 8);
        o[2] = static_cast<char>(v);
        o[3] = static_cast<char>(w >> 16);
        o[4] = static_cast<char>(w >> 8);
        o[5] = static_cast<char>(w);
        o += 6;
    }
    for (; i < body; i += 4) {
        std::uint32_t v = kD0[p[i]] | kD1[p[i + 1]] | kD2[p[i + 2]] | kD3[p[i + 3]];
        if (v & 0x01000000u) {
            size_t bad = i;
            while (kTable[p[bad]] >= 0) ++bad;
            return make_error(Errc::parse, "invalid base64 character", "offset " + std::to_string(bad));
        }
        *o++ = static_cast<char>(v >> 16);
        *o++ = static_cast<char>(v >> 8);
        *o++ = static_cast<char>(v);
    }
    if (!in.empty()) {
        std::uint32_t v = 0;
        for (size_t k = 0; k < 4; ++k) {
            unsigned char ch = static_cast<unsigned char>(in[body + k]);
            int d = kTable[ch];
            if (ch == '=' && k >= 4 - pad) d = 0;
            else if (d < 0)
                return make_error(Errc::parse, "invalid base64 character", "offset " + std::to_string(body + k));
            v = v << 6 | static_cast<std::uint32_t>(d);
        }
        *o++ = static_cast<char>(v >> 16);
        if (pad < 2) *o++ = static_cast<char>(v >> 8);
        if (pad < 1) *o++ = static_cast<char>(v);
    }
    out.resize(static_cast<size_t>(o - out.data()));
    return out;
}

}  // namespace kiln::hash
