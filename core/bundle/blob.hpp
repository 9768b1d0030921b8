#pragma once
// Reading torch's Mega-Cache blobs (`torch.compiler.save_cache_artifacts()` bytes) without Python.
// Layout (torch/utils/_appending_byte_serializer.py, torch/compiler/_cache.py; all integers u64
// big-endian): crc32(rest):u32be | version:u64 (=1) | group* to the end, where
// group = type:str n:u64 (key:str content:bytes){n}, bytes = len:u64 + raw bytes, and str = bytes
// holding base64 of UTF-8 text.
//
// The reader is safe on hostile input: every length is checked against the bytes left before use
// (torch loops forever on some crafted blobs), base64 is strict, keys must be UTF-8 and are checked
// against their type's shape before anything may turn them into a path. Contents are views into the
// one buffer the blob was read into (a 16 MB blob is never copied).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bundle/artifact_types.hpp"
#include "pickle/buffer.hpp"
#include "util/result.hpp"

namespace kiln::bundle {

inline constexpr std::uint64_t kBlobVersion = 1;
// Default bound on a blob read into memory (--max-size overrides it).
inline constexpr std::uint64_t kDefaultMaxBlobBytes = 8ull << 30;

struct BlobGroup {
    std::string type;  // the type string as decoded
    ArtifactType kind = ArtifactType::unknown;
    std::uint64_t offset = 0;       // where the group's type field starts
    std::uint64_t count = 0;        // artifacts in the group
    std::size_t first = 0;          // index of its first artifact in Blob::artifacts
    bool ignored_by_torch = false;  // a later group has the same type: torch's dict() keeps only that one
};

struct BlobArtifact {
    std::size_t group = 0;
    ArtifactType kind = ArtifactType::unknown;
    std::string key;
    std::string_view content;  // a view into Blob::buffer
    std::uint64_t offset = 0;  // where the artifact's key field starts
    std::uint64_t content_offset = 0;
    std::string key_problem;        // why the key is refused (empty: valid); such keys are never paths
    std::string target;             // what load_cache_artifacts writes, relative to the cache dir (valid keys only)
    bool ignored_by_torch = false;  // in a shadowed group
    bool superseded = false;        // a later artifact torch loads writes the same file ("last wins")

    // Loaded by torch and written to the file named by `target`.
    bool effective() const { return !ignored_by_torch && !superseded && key_problem.empty() && !target.empty(); }
};

struct Blob {
    std::shared_ptr<const pickle::Buffer> buffer;
    std::uint32_t stored_crc = 0;
    std::uint32_t computed_crc = 0;
    std::uint64_t version = 0;
    std::vector<BlobGroup> groups;
    std::vector<BlobArtifact> artifacts;

    std::string_view bytes() const { return buffer ? buffer->bytes() : std::string_view(); }
    const std::string& origin() const { return buffer->origin(); }
    bool checksum_ok() const { return stored_crc == computed_crc; }
    // Type strings torch 2.11 does not register (it then rejects the whole blob and writes nothing).
    std::vector<std::string> unknown_types() const;
    // Keys refused by check_key (a hostile or foreign blob).
    std::size_t invalid_keys() const;
};

struct ReadOptions {
    bool verify_checksum = true;  // false: list a blob whose CRC does not match (torch would refuse it)
    std::uint64_t max_bytes = kDefaultMaxBlobBytes;
};

// Parses `buffer`. Errors (Errc::parse) name the byte offset and what was expected there: truncation,
// a length past the end, bad base64, a key or type that is not UTF-8, trailing bytes, a checksum that
// does not match (unless options.verify_checksum is false), a version other than 1.
Result<Blob> read_blob(std::shared_ptr<const pickle::Buffer> buffer, const ReadOptions& options = {});
// Reads the file once into memory (refusing one over options.max_bytes) and parses it.
Result<Blob> open_blob(const std::filesystem::path& path, const ReadOptions& options = {});

// Whether the first bytes look like a Mega-Cache blob: at least 12 bytes, version 1 at offset 4.
bool looks_like_blob(std::string_view head);
// Whether `path` is a regular file that looks like a blob (reads its first 12 bytes).
bool is_blob_file(const std::filesystem::path& path);

// The content of one artifact as a Buffer sharing the blob's memory, for the decoders (GraphEntry,
// pickle): errors name "<blob>[<type> <key>]".
std::shared_ptr<const pickle::Buffer> artifact_buffer(const Blob& blob, const BlobArtifact& artifact);

}  // namespace kiln::bundle
