#pragma once
// The bytes of one pickle: a file read into one block, or an owned string (remote cache values,
// tests). Shared by the Document and everything that holds views into it.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace kiln {
struct OpenedFile;  // util/regular_file.hpp
}

namespace kiln::pickle {

// A bytes payload left out of a skimmed buffer (skim.hpp): the opcode at `at` in bytes() says 0 bytes;
// the file held `length`.
struct Elision {
    std::size_t at = 0;
    std::uint64_t length = 0;
};

class Buffer {
public:
    virtual ~Buffer() = default;
    virtual std::string_view bytes() const = 0;
    // Skimmed buffers only (skim.hpp): the payloads left out, in stream order, and the size of the
    // whole pickle they came from. The decoder reports offsets and checks FRAME lengths in the file's
    // terms through them.
    virtual std::span<const Elision> elisions() const { return {}; }
    virtual std::uint64_t source_size() const { return bytes().size(); }
    // Where the bytes came from (a path, "redis:<key>", "<memory>"), used in error contexts.
    const std::string& origin() const { return origin_; }

protected:
    explicit Buffer(std::string origin) : origin_(std::move(origin)) {}

private:
    std::string origin_;
};

// The bytes of `path`, read once into memory (a snapshot: later writes to the file do not reach it).
// A file larger than `max_bytes` is refused (Errc::limit) before anything is allocated.
Result<std::shared_ptr<const Buffer>> load_file(const std::filesystem::path& path,
                                                std::uint64_t max_bytes = UINT64_MAX);
// The same from a file already open (util/regular_file): its size when opened is what is read.
Result<std::shared_ptr<const Buffer>> load_opened_file(const OpenedFile& file, const std::string& origin,
                                                       std::uint64_t max_bytes = UINT64_MAX);
// Takes ownership of `bytes`.
std::shared_ptr<const Buffer> own_bytes(std::string bytes, std::string origin = "<memory>");

}  // namespace kiln::pickle
