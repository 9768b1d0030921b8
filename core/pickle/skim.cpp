#include "pickle/skim.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "pickle/opcodes.hpp"
#include "util/regular_file.hpp"

namespace kiln::pickle {
namespace {

// The last skimmed stream this thread let go of, kept for its next file: a graph entry's stream is
// ~650 KB, past glibc's mmap threshold as the GUI sets it, so each grew through three fresh mappings
// and faulted in their pages (with the arena trims after it, ~1.2 CPU-s of a million-file open,
// issue 44). One per thread, at most kMaxSpare (an entry's stream fits).
constexpr std::size_t kMaxSpare = std::size_t{2} << 20;
thread_local std::string spare_stream;

class SkimBuffer final : public Buffer {
public:
    SkimBuffer(std::string bytes, std::vector<Elision> elisions, std::uint64_t source_size, std::string origin)
        : Buffer(std::move(origin)), bytes_(std::move(bytes)), elisions_(std::move(elisions)), size_(source_size) {}
    ~SkimBuffer() override {
        if (bytes_.capacity() <= kMaxSpare && bytes_.capacity() > spare_stream.capacity()) {
            bytes_.clear();
            spare_stream.swap(bytes_);
        }
    }
    std::string_view bytes() const override { return bytes_; }
    std::span<const Elision> elisions() const override { return elisions_; }
    std::uint64_t source_size() const override { return size_; }

private:
    std::string bytes_;
    std::vector<Elision> elisions_;
    std::uint64_t size_;
};

// Reads start small after a payload (the opcodes up to the next one are a few hundred bytes, and what
// a read takes of the next payload is wasted) and double while no payload comes (a run of strings).
constexpr std::size_t kFirstChunk = 512, kMaxChunk = 64 * 1024;

// Appends the file's bytes from `at` to `out`, never past `size` (the size when opened, as load_file).
struct Reader {
    int fd;
    std::uint64_t size;
    const std::string& path;
    std::uint64_t at = 0, read = 0;
    std::size_t chunk = kFirstChunk;

    // Continues after a payload at `to`.
    void skip_to(std::uint64_t to) {
        at = to;
        chunk = kFirstChunk;
    }
    // At least `n` more bytes (fewer at the end of the file); false at the end of the file.
    Result<bool> more(std::string& out, std::size_t n) {
        if (at >= size) return false;
        auto want = static_cast<std::size_t>(std::min<std::uint64_t>(std::max(n, chunk), size - at));
        chunk = std::min(chunk * 2, kMaxChunk);
        std::size_t old = out.size(), got = 0;
        out.resize(old + want);
        while (got < want) {
            ssize_t k = ::pread(fd, out.data() + old + got, want - got, static_cast<off_t>(at + got));
            if (k < 0 && errno == EINTR) continue;
            if (k < 0) return io_error("cannot read", path, errno);
            if (k == 0)
                return make_error(Errc::io,
                                  "the file shrank from " + std::to_string(size) + " to " + std::to_string(at + got) +
                                      " bytes while it was read (another process is writing it)",
                                  path, "open it again once the writer is done");
            got += static_cast<std::size_t>(k);
        }
        at += want;
        read += want;
        return true;
    }
};

std::size_t length_width(ArgKind a) {
    switch (a) {
        case ArgKind::bytes4: return 4;
        case ArgKind::bytes8:
        case ArgKind::bytearray8: return 8;
        default: return 0;
    }
}

}  // namespace

Result<std::shared_ptr<const Buffer>> skim_file(const std::filesystem::path& path, std::uint64_t min_elided,
                                                SkimStats* stats) {
    KILN_TRY(OpenedFile file, open_regular_file(path));  // no FIFO, no atime update
    return skim_opened_file(file, path.string(), min_elided, stats);
}

Result<std::shared_ptr<const Buffer>> skim_opened_file(const OpenedFile& file, const std::string& path,
                                                       std::uint64_t min_elided, SkimStats* stats) {
    Reader in{file.fd.get(), file.size, path};
    std::string out =
        std::exchange(spare_stream, {});  // the skimmed stream; file offset of out.end() = out.size() + skipped
    out.clear();
    std::vector<Elision> elisions;
    std::uint64_t skipped = 0;
    std::size_t pos = 0;  // the next opcode in `out`
    for (;;) {
        if (pos >= out.size()) {
            KILN_TRY(bool got, in.more(out, 0));
            if (!got) break;  // the end of the file before STOP: the decoder says so
            continue;
        }
        auto code = static_cast<std::uint8_t>(out[pos]);
        const OpInfo& info = op_info(code);
        if (!info.name) break;  // the decoder stops at it: nothing after it matters
        if (code == op::STOP) {
            out.resize(pos + 1);  // nor after STOP
            break;
        }
        if (std::size_t width = length_width(info.arg)) {
            if (out.size() - pos < 1 + width) {
                KILN_TRY(bool got, in.more(out, 0));
                if (!got) break;
                continue;
            }
            std::uint64_t length = detail::le(out.data() + pos + 1, static_cast<int>(width));
            std::uint64_t payload_at = pos + 1 + width + skipped;
            if (length >= min_elided && length <= file.size - payload_at) {
                elisions.push_back({pos, length});
                std::memset(out.data() + pos + 1, 0, width);
                out.resize(pos + 1 + width);  // what was read of the payload goes
                skipped += length;
                in.skip_to(payload_at + length);
                pos += 1 + width;
                continue;
            }
        }
        std::size_t next = pos + 1;
        RawArg arg;
        if (read_arg(out, next, info.arg, arg)) {
            // Mostly an argument longer than what was read so far: read on (doubling), else the
            // decoder reports the same failure at the end of the file.
            KILN_TRY(bool got, in.more(out, out.size() - pos));
            if (!got) break;
            continue;
        }
        pos = next;
    }
    if (stats) *stats = {file.size, in.read};
    return std::shared_ptr<const Buffer>(
        std::make_shared<SkimBuffer>(std::move(out), std::move(elisions), file.size, path));
}

}  // namespace kiln::pickle
