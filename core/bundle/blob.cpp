#include "bundle/blob.hpp"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "hash/base64.hpp"
#include "hash/crc32.hpp"
#include "util/json_out.hpp"
#include "util/regular_file.hpp"

namespace kiln::bundle {
namespace {

// Types and keys are short (a PGO key must fit a file name); a longer string is a corrupted length.
constexpr std::uint64_t kMaxStringBytes = 4096;
// Each artifact needs at least 16 bytes of framing; this bounds the index built for a hostile blob.
constexpr std::size_t kMaxArtifacts = 1000000;

std::string hex32(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

class Cursor {
public:
    Cursor(std::string_view data, std::string origin) : data_(data), origin_(std::move(origin)) {}

    std::uint64_t pos() const { return pos_; }
    std::uint64_t left() const { return data_.size() - pos_; }
    bool done() const { return pos_ == data_.size(); }
    void seek(std::uint64_t p) { pos_ = p; }

    Error error(std::uint64_t at, std::string message, std::string hint = {}) const {
        return make_error(Errc::parse, std::move(message), origin_ + ": byte " + std::to_string(at), std::move(hint));
    }

    Result<std::uint64_t> u64(const std::string& what) {
        if (left() < 8)
            return error(pos_, "truncated: " + what + " needs 8 bytes, " + std::to_string(left()) + " left",
                         "the blob was cut short (an interrupted copy or download?)");
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v = v << 8 | static_cast<unsigned char>(data_[pos_ + i]);
        pos_ += 8;
        return v;
    }

    // A length-prefixed field; `max` bounds its length.
    Result<std::string_view> bytes(const std::string& what, std::uint64_t max = UINT64_MAX) {
        std::uint64_t at = pos_;
        KILN_TRY(std::uint64_t n, u64("the length of " + what));
        if (n > max)
            return error(
                at, what + " claims " + std::to_string(n) + " bytes (at most " + std::to_string(max) + " expected)",
                "a corrupted length field");
        if (n > left())
            return error(at,
                         "truncated: " + what + " claims " + std::to_string(n) + " bytes from byte " +
                             std::to_string(pos_) + ", only " + std::to_string(left()) + " left",
                         "the blob was cut short, or the length field is corrupted");
        std::string_view v = data_.substr(pos_, n);
        pos_ += n;
        return v;
    }

    // base64 of UTF-8 text (torch's write_str), decoded strictly.
    Result<std::string> str(const std::string& what) {
        std::uint64_t start = pos_;
        KILN_TRY(std::string_view coded, bytes(what, kMaxStringBytes));
        auto text = hash::base64_decode(coded);
        if (!text.ok())
            return error(start + 8,
                         what + " is not valid base64 (" + text.error().message + ", " + text.error().context + ")",
                         "torch writes types and keys as base64; this blob is corrupted or was not written by torch");
        if (!is_valid_utf8(*text)) return error(start + 8, what + " is not UTF-8 text", "corrupted or hostile blob");
        return std::move(text).value();
    }

private:
    std::string_view data_;
    std::string origin_;
    std::uint64_t pos_ = 0;
};

// torch.compile's standalone_compile(...).save(format="binary") frame: crc | bytes("CacheCompiledArtifact") | ...
bool is_standalone_artifact(std::string_view b) {
    static constexpr std::string_view kTag = "CacheCompiledArtifact";
    return b.size() >= 12 + kTag.size() && b.substr(4, 8) == std::string_view("\0\0\0\0\0\0\0\x15", 8) &&
           b.substr(12, kTag.size()) == kTag;
}

Status parse_header(Cursor& in, Blob& blob, std::string_view b) {
    if (b.size() < 4)
        return in.error(
            0, "too short for a Mega-Cache blob: " + std::to_string(b.size()) + " bytes (the checksum alone takes 4)",
            "is this the output of torch.compiler.save_cache_artifacts()?");
    blob.stored_crc = static_cast<std::uint32_t>(static_cast<unsigned char>(b[0])) << 24 |
                      static_cast<std::uint32_t>(static_cast<unsigned char>(b[1])) << 16 |
                      static_cast<std::uint32_t>(static_cast<unsigned char>(b[2])) << 8 |
                      static_cast<unsigned char>(b[3]);
    in.seek(4);
    KILN_TRY(blob.version, in.u64("the format version"));
    if (blob.version == kBlobVersion) return ok_status();
    blob.computed_crc = hash::crc32(b.substr(4));
    if (is_standalone_artifact(b))
        return make_error(
            Errc::unsupported, "a torch standalone_compile artifact (CompiledArtifact.save), not a Mega-Cache blob",
            blob.buffer->origin(), "it holds a Mega-Cache blob inside, loaded only by the same torch build");
    if (!blob.checksum_ok())
        return in.error(4,
                        "not a Mega-Cache blob, or a corrupted one: the format version is " +
                            std::to_string(blob.version) + " (torch writes 1) and the checksum does not match",
                        "is this the output of torch.compiler.save_cache_artifacts()?");
    return make_error(Errc::unsupported,
                      "Mega-Cache format version " + std::to_string(blob.version) + "; Kiln reads version 1",
                      blob.buffer->origin() + ": byte 4", "written by a torch newer than Kiln knows");
}

Status parse_groups(Cursor& in, Blob& blob) {
    while (!in.done()) {
        BlobGroup g;
        g.offset = in.pos();
        std::string where = "the type of group " + std::to_string(blob.groups.size() + 1);
        KILN_TRY(g.type, in.str(where));
        g.kind = artifact_type_from_name(g.type).value_or(ArtifactType::unknown);
        KILN_TRY(g.count, in.u64("the artifact count of group '" + g.type + "'"));
        if (g.count > in.left() / 16)
            return in.error(in.pos() - 8,
                            "group '" + g.type + "' claims " + std::to_string(g.count) + " artifacts, more than the " +
                                std::to_string(in.left()) + " bytes left can hold",
                            "a corrupted count, or a truncated blob");
        g.first = blob.artifacts.size();
        for (std::uint64_t i = 0; i < g.count; ++i) {
            if (blob.artifacts.size() >= kMaxArtifacts)
                return make_error(Errc::limit, "more than " + std::to_string(kMaxArtifacts) + " artifacts",
                                  blob.buffer->origin());
            BlobArtifact a;
            a.group = blob.groups.size();
            a.kind = g.kind;
            a.offset = in.pos();
            std::string label = "artifact " + std::to_string(i + 1) + " of group '" + g.type + "'";
            KILN_TRY(a.key, in.str("the key of " + label));
            a.content_offset = in.pos() + 8;
            KILN_TRY(a.content, in.bytes("the content of " + label + " (" + a.key + ")"));
            blob.artifacts.push_back(std::move(a));
        }
        blob.groups.push_back(std::move(g));
    }
    return ok_status();
}

// torch loads dict(groups): the last group of each type, and within it each file's last write.
void resolve_targets(Blob& blob) {
    std::unordered_map<std::string, std::size_t> last_group;
    for (std::size_t i = 0; i < blob.groups.size(); ++i) last_group[blob.groups[i].type] = i;
    for (std::size_t i = 0; i < blob.groups.size(); ++i)
        blob.groups[i].ignored_by_torch = last_group[blob.groups[i].type] != i;
    std::unordered_map<std::string, std::size_t> writer;  // target -> artifact index torch writes last
    for (std::size_t i = 0; i < blob.artifacts.size(); ++i) {
        BlobArtifact& a = blob.artifacts[i];
        a.ignored_by_torch = blob.groups[a.group].ignored_by_torch;
        if (a.kind == ArtifactType::unknown) continue;
        Status key_ok = check_key(a.kind, a.key);
        if (!key_ok.ok()) {
            a.key_problem = key_ok.error().message;
            continue;
        }
        a.target = load_target(a.kind, a.key, a.content);
        // Every name unpack would create must fit, or a dry run would promise what unpack cannot do.
        if (!names_fit(a.target) || (a.kind == ArtifactType::pgo && !names_fit(pgo_lock_target(a.key)))) {
            a.key_problem = "a key whose file name would be longer than " + std::to_string(kMaxFileName) + " bytes";
            a.target.clear();
            continue;
        }
        if (a.ignored_by_torch) continue;
        auto [it, fresh] = writer.try_emplace(a.target, i);
        if (!fresh) {
            blob.artifacts[it->second].superseded = true;
            it->second = i;
        }
    }
}

}  // namespace

std::vector<std::string> Blob::unknown_types() const {
    std::vector<std::string> out;
    for (const auto& g : groups)
        if (g.kind == ArtifactType::unknown && std::find(out.begin(), out.end(), g.type) == out.end())
            out.push_back(g.type);
    return out;
}

std::size_t Blob::invalid_keys() const {
    std::size_t n = 0;
    for (const auto& a : artifacts) n += !a.key_problem.empty();
    return n;
}

Result<Blob> read_blob(std::shared_ptr<const pickle::Buffer> buffer, const ReadOptions& options) {
    if (!buffer) return make_error(Errc::invalid_argument, "no bytes to read");
    Blob blob;
    blob.buffer = std::move(buffer);
    std::string_view b = blob.buffer->bytes();
    if (b.size() > options.max_bytes)
        return make_error(Errc::limit, "a blob of " + std::to_string(b.size()) + " bytes is over the limit",
                          blob.buffer->origin(), "raise it with --max-size");
    Cursor in(b, blob.buffer->origin());
    KILN_CHECK(parse_header(in, blob, b));
    // Framing first: its errors say where the blob breaks; the checksum (a pass over every byte) after.
    KILN_CHECK(parse_groups(in, blob));
    blob.computed_crc = hash::crc32(b.substr(4));
    if (options.verify_checksum && !blob.checksum_ok())
        return make_error(Errc::parse,
                          "checksum mismatch: bytes 0-3 say " + hex32(blob.stored_crc) + ", the CRC-32 of bytes 4-" +
                              std::to_string(b.size()) + " is " + hex32(blob.computed_crc),
                          blob.buffer->origin() + ": byte 0",
                          "the blob changed after torch wrote it; torch refuses it and loads nothing");
    resolve_targets(blob);
    return blob;
}

Result<Blob> open_blob(const std::filesystem::path& path, const ReadOptions& options) {
    auto buffer = pickle::load_file(path, options.max_bytes);
    if (!buffer.ok()) {
        if (buffer.error().code == Errc::limit)
            return std::move(buffer.error()).with_hint("raise the limit with --max-size");
        return std::move(buffer.error());
    }
    return read_blob(std::move(buffer).value(), options);
}

bool looks_like_blob(std::string_view head) {
    return head.size() >= 12 && head.substr(4, 8) == std::string_view("\0\0\0\0\0\0\0\x01", 8);
}

bool is_blob_file(const std::filesystem::path& path) {
    // util/regular_file: a FIFO never blocks, and sniffing a blob leaves its atime alone.
    auto file = open_regular_file(path);
    if (!file) return false;
    auto head = read_prefix(*file, 12, path.string());
    return head && looks_like_blob(*head);
}

namespace {
// One artifact's bytes, sharing the blob's block.
class SliceBuffer final : public pickle::Buffer {
public:
    SliceBuffer(std::shared_ptr<const pickle::Buffer> parent, std::string_view bytes, std::string origin)
        : Buffer(std::move(origin)), parent_(std::move(parent)), bytes_(bytes) {}
    std::string_view bytes() const override { return bytes_; }

private:
    std::shared_ptr<const pickle::Buffer> parent_;
    std::string_view bytes_;
};
}  // namespace

std::shared_ptr<const pickle::Buffer> artifact_buffer(const Blob& blob, const BlobArtifact& a) {
    std::string origin = blob.origin() + "[" + blob.groups[a.group].type + " " + a.key + "]";
    return std::make_shared<SliceBuffer>(blob.buffer, a.content, std::move(origin));
}

}  // namespace kiln::bundle
