// The bytes a kept scan's artifacts and groups view (scanner.hpp, "Lifetimes").
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>

#include "inductor/scanner.hpp"

namespace kiln::inductor {

namespace {
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
}  // namespace

std::string_view PathStore::add(std::string_view a, std::string_view b, std::string_view c) {
    const std::size_t n = a.size() + b.size() + c.size();
    if (n > left_) {
        // A new chunk; what was left of the old one stays unused (at most one path's worth).
        const std::size_t size = std::max(n, kChunkBytes);
        chunks_.push_back(std::make_unique_for_overwrite<char[]>(size));
        next_ = chunks_.back().get();
        left_ = size;
        bytes_ += size;
    }
    char* out = next_;
    if (!a.empty()) std::memcpy(out, a.data(), a.size());
    if (!b.empty()) std::memcpy(out + a.size(), b.data(), b.size());
    if (!c.empty()) std::memcpy(out + a.size() + b.size(), c.data(), c.size());
    next_ += n;
    left_ -= n;
    return {out, n};
}

std::string join_root(const std::string* root, std::string_view rel) {
    if (!root) return std::string(rel);
    std::string out;
    out.reserve(root->size() + 1 + rel.size());
    out.append(*root).append(1, '/').append(rel);
    return out;
}

std::string Artifact::path() const { return join_root(root, rel_path()); }

std::string Group::path() const { return join_root(root, rel); }

void Artifact::set_path(const std::string* r, std::string_view rel) {
    root = r;
    rel_data = rel.data();
    rel_size = static_cast<std::uint32_t>(rel.size());
}

void Artifact::set_key(std::string_view key) {
    const std::string_view rel = rel_path();
    std::size_t at = std::string_view::npos;
    // Compared as addresses through std::less: ordering pointers of unrelated arrays with < is unspecified.
    if (std::less_equal<const char*>()(rel.data(), key.data()) &&
        std::less_equal<const char*>()(key.data() + key.size(), rel.data() + rel.size()))
        at = static_cast<std::size_t>(key.data() - rel.data());
    else if (!key.empty()) at = rel.rfind(key);
    if (at == std::string_view::npos || at > 0xffff || key.size() > 0xffff) at = 0, key = {};
    key_offset = static_cast<std::uint16_t>(at);
    key_size = static_cast<std::uint16_t>(key.size());
}

}  // namespace kiln::inductor
