#pragma once
// Hand-made Mega-Cache blobs for tests, written the way torch's BytesWriter writes them but with no
// checks, so a test can make any hostile or broken blob (an independent encoder: Kiln's own writer
// refuses such input). Python equivalent: ../shared/docs/inductor-cache-format.md §12.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::test::craft {

inline std::string u64(std::uint64_t v) {
    std::string s(8, '\0');
    for (int i = 7; i >= 0; --i, v >>= 8) s[static_cast<std::size_t>(i)] = static_cast<char>(v & 0xff);
    return s;
}
inline std::string bytes(std::string_view b) { return u64(b.size()) + std::string(b); }

inline std::string b64(std::string_view in) {
    static const char* A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        unsigned v = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8 |
                     static_cast<unsigned char>(in[i + 2]);
        out += A[v >> 18 & 63];
        out += A[v >> 12 & 63];
        out += A[v >> 6 & 63];
        out += A[v & 63];
    }
    if (in.size() - i == 1) {
        unsigned v = static_cast<unsigned char>(in[i]) << 16;
        out += A[v >> 18 & 63];
        out += A[v >> 12 & 63];
        out += "==";
    } else if (in.size() - i == 2) {
        unsigned v = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8;
        out += A[v >> 18 & 63];
        out += A[v >> 12 & 63];
        out += A[v >> 6 & 63];
        out += '=';
    }
    return out;
}
inline std::string str(std::string_view s) { return bytes(b64(s)); }

// Bitwise CRC-32 (zlib's), deliberately not Kiln's table-driven one.
inline std::uint32_t crc32(std::string_view b) {
    std::uint32_t c = 0xffffffffu;
    for (unsigned char ch : b) {
        c ^= ch;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return ~c;
}

using Artifacts = std::vector<std::pair<std::string, std::string>>;  // (key, content)
inline std::string group(std::string_view type, const Artifacts& arts) {
    std::string g = str(type) + u64(arts.size());
    for (const auto& [k, c] : arts) g += str(k) + bytes(c);
    return g;
}

// A whole blob: CRC over version + body, unless `crc` overrides it.
inline std::string blob(const std::string& body, std::uint64_t version = 1) {
    std::string rest = u64(version) + body;
    std::uint32_t c = crc32(rest);
    std::string head{static_cast<char>(c >> 24), static_cast<char>(c >> 16), static_cast<char>(c >> 8),
                     static_cast<char>(c)};
    return head + rest;
}

inline void write(const std::filesystem::path& p, std::string_view data) {
    std::ofstream out(p, std::ios::binary);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

// A real-looking key of each type.
inline const std::string kFx = "faowxkdfnc3l6ngxumumzu5rn4ei65emq4ak4dmbtrs5capo455u";
inline const std::string kAot = "ayhvhcy2jyy5olafsdeoso6pvf7iv6jn7dwhhyimztvdkummal7n";
inline const std::string kTune = "bg/ac87608fd53b84d385492d6661caeb048f9609fde73a1dc80c5b5f28e105198f.best_config";

}  // namespace kiln::test::craft
