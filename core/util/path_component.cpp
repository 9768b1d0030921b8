#include "util/path_component.hpp"

#include <cstdint>

namespace kiln {

namespace {

constexpr std::size_t kReadableBytes = 40;

bool is_word_byte(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

// FNV-1a: a file name needs no cryptographic hash, only one that tells escaped names apart.
std::uint64_t name_hash(std::string_view s) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

}  // namespace

std::string file_name_part(std::string_view name) {
    bool plain = !name.empty() && name.size() <= kReadableBytes;
    for (char c : name) plain = plain && is_word_byte(c);
    if (plain) return std::string(name);
    std::string out;
    for (std::size_t i = 0; i < name.size() && i < kReadableBytes; ++i) out += is_word_byte(name[i]) ? name[i] : '_';
    static const char* hex = "0123456789abcdef";
    out += '-';
    const std::uint64_t h = name_hash(name);
    for (int shift = 60; shift >= 0; shift -= 4) out += hex[(h >> shift) & 0xf];
    return out;
}

bool is_plain_file_name(std::string_view name) {
    if (name.empty() || name.size() > 255 || name.front() == '.') return false;
    for (char c : name)
        if (!is_word_byte(c) && c != '.') return false;
    return true;
}

}  // namespace kiln
