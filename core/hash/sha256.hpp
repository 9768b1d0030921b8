#pragma once
// SHA-256 through OpenSSL's EVP interface, and the key formats Inductor derives from it
// (../shared/docs/inductor-cache-format.md §3).
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace kiln::hash {

using Digest = std::array<std::uint8_t, 32>;

// Incremental hasher for large or streamed inputs.
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    Sha256& update(std::string_view bytes);
    Digest finish();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

Digest sha256(std::string_view bytes);
std::string to_hex(const Digest& d);
std::string sha256_hex(std::string_view bytes);

// RFC 4648 base32, upper case, with '=' padding (like Python's base64.b32encode).
std::string base32(std::string_view bytes);

// Inductor's sha256_hash: base32(sha256(data)).lower()[:51].
std::string sha256_hash(std::string_view bytes);

// Inductor's code_hash: "c" + sha256_hash(code + ("||" + extra if extra else "")).
std::string code_hash(std::string_view code, std::string_view extra = {});

}  // namespace kiln::hash
