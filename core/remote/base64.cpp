#include "remote/base64.hpp"

#include <array>
#include <cstdint>

namespace kiln::remote {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<std::int8_t, 256> make_table() {
    std::array<std::int8_t, 256> t{};
    for (auto& v : t) v = -1;
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
    return t;
}
constexpr auto kTable = make_table();

}  // namespace

std::string base64_encode(std::string_view in) {
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    size_t i = 0;
    auto byte = [&](size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(in[k])); };
    for (; i + 3 <= in.size(); i += 3) {
        std::uint32_t v = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
        out += kAlphabet[v >> 18 & 63]; out += kAlphabet[v >> 12 & 63];
        out += kAlphabet[v >> 6 & 63];  out += kAlphabet[v & 63];
    }
    if (size_t rest = in.size() - i; rest > 0) {
        std::uint32_t v = byte(i) << 16 | (rest == 2 ? byte(i + 1) << 8 : 0);
        out += kAlphabet[v >> 18 & 63]; out += kAlphabet[v >> 12 & 63];
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
    for (size_t i = 0; i < body; i += 4) {
        int a = kTable[static_cast<unsigned char>(in[i])], b = kTable[static_cast<unsigned char>(in[i + 1])];
        int c = kTable[static_cast<unsigned char>(in[i + 2])], d = kTable[static_cast<unsigned char>(in[i + 3])];
        if ((a | b | c | d) < 0)
            return make_error(Errc::parse, "invalid base64 character", "offset " + std::to_string(i));
        std::uint32_t v = static_cast<std::uint32_t>(a << 18 | b << 12 | c << 6 | d);
        *o++ = static_cast<char>(v >> 16); *o++ = static_cast<char>(v >> 8); *o++ = static_cast<char>(v);
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

}  // namespace kiln::remote
