#include "bundle/blob_writer.hpp"

#include <set>

#include "bundle/blob.hpp"
#include "hash/base64.hpp"
#include "hash/crc32.hpp"

namespace kiln::bundle {
namespace {

void put_u64(std::string& out, std::uint64_t v) {
    for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}
void put_bytes(std::string& out, std::string_view b) {
    put_u64(out, b.size());
    out.append(b);
}
void put_str(std::string& out, std::string_view s) { put_bytes(out, hash::base64_encode(s)); }

std::uint64_t str_size(std::string_view s) { return 8 + (s.size() + 2) / 3 * 4; }

}  // namespace

Result<std::string> build_blob(const std::vector<OutGroup>& groups, std::uint64_t max_bytes) {
    std::set<ArtifactType> seen;
    std::uint64_t size = 12;
    for (const auto& g : groups) {
        if (g.type == ArtifactType::unknown)
            return make_error(Errc::invalid_argument, "cannot write an artifact of unknown type");
        if (!seen.insert(g.type).second)
            return make_error(Errc::invalid_argument, "two groups of type " + std::string(artifact_type_name(g.type)),
                              {}, "torch loads only the last group of a type: merge them");
        size += str_size(artifact_type_name(g.type)) + 8;
        for (const auto& a : g.artifacts) {
            KILN_CHECK(check_key(g.type, a.key));
            size += str_size(a.key) + 8 + a.content.size();
        }
    }
    if (size > max_bytes)
        return make_error(
            Errc::limit,
            "the blob would be " + std::to_string(size) + " bytes, over the limit of " + std::to_string(max_bytes), {},
            "select fewer artifacts or raise --max-size");
    std::string out;
    out.reserve(size);
    out.append(4, '\0');
    put_u64(out, kBlobVersion);
    for (const auto& g : groups) {
        put_str(out, artifact_type_name(g.type));
        put_u64(out, g.artifacts.size());
        for (const auto& a : g.artifacts) {
            put_str(out, a.key);
            put_bytes(out, a.content);
        }
    }
    std::uint32_t crc = hash::crc32(std::string_view(out).substr(4));
    for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((crc >> (24 - 8 * i)) & 0xff);
    return out;
}

}  // namespace kiln::bundle
