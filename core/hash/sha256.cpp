#include "hash/sha256.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace kiln::hash {

namespace {
// OpenSSL 3 looks EVP_sha256() up in its provider store, under a process-wide lock, at every init:
// with many threads hashing (portable's .best_config names) that lock was a third of the CPU time.
// Fetched once, the digest is only reference-counted.
const EVP_MD* sha256_md() {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    static const EVP_MD* md = [] {
        const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
        return fetched ? fetched : EVP_sha256();
    }();
    return md;
#else
    return EVP_sha256();
#endif
}
}  // namespace

struct Sha256::Impl {
    EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {
    impl_->ctx = EVP_MD_CTX_new();
    // Allocation failure of a hash context is not a recoverable input error.
    if (!impl_->ctx || EVP_DigestInit_ex(impl_->ctx, sha256_md(), nullptr) != 1)
        throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
}

Sha256::~Sha256() { EVP_MD_CTX_free(impl_->ctx); }

Sha256& Sha256::update(std::string_view bytes) {
    EVP_DigestUpdate(impl_->ctx, bytes.data(), bytes.size());
    return *this;
}

Digest Sha256::finish() {
    Digest d{};
    unsigned int len = 0;
    EVP_DigestFinal_ex(impl_->ctx, d.data(), &len);
    EVP_DigestInit_ex(impl_->ctx, sha256_md(), nullptr);  // reusable after finish
    return d;
}

Digest sha256(std::string_view bytes) {
    Digest d{};
    unsigned int len = 0;
    EVP_Digest(bytes.data(), bytes.size(), d.data(), &len, sha256_md(), nullptr);
    return d;
}

std::string to_hex(const Digest& d) {
    static const char* digits = "0123456789abcdef";
    std::string s(64, '0');
    for (size_t i = 0; i < d.size(); ++i) {
        s[2 * i] = digits[d[i] >> 4];
        s[2 * i + 1] = digits[d[i] & 15];
    }
    return s;
}

std::string sha256_hex(std::string_view bytes) { return to_hex(sha256(bytes)); }

std::string base32(std::string_view bytes) {
    static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    std::string out;
    out.reserve((bytes.size() + 4) / 5 * 8);
    std::uint64_t buffer = 0;
    int bits = 0;
    for (unsigned char c : bytes) {
        buffer = (buffer << 8) | c;
        bits += 8;
        while (bits >= 5) {
            out.push_back(alphabet[(buffer >> (bits - 5)) & 31]);
            bits -= 5;
        }
    }
    if (bits > 0) out.push_back(alphabet[(buffer << (5 - bits)) & 31]);
    while (out.size() % 8) out.push_back('=');
    return out;
}

std::string sha256_hash(std::string_view bytes) {
    Digest d = sha256(bytes);
    std::string b = base32(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
    b.resize(51);
    for (char& c : b) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return b;
}

std::string code_hash(std::string_view code, std::string_view extra) {
    std::string key = "c";
    if (extra.empty()) return key.append(sha256_hash(code));
    std::string buf;
    buf.reserve(code.size() + 2 + extra.size());
    buf.append(code).append("||").append(extra);
    return key.append(sha256_hash(buf));
}

}  // namespace kiln::hash
