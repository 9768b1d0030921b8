#include "pickle/buffer.hpp"

#include "util/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <new>
#include <string>

namespace kiln::pickle {
namespace {

class OwnedBuffer final : public Buffer {
public:
    OwnedBuffer(std::string bytes, std::string origin) : Buffer(std::move(origin)), bytes_(std::move(bytes)) {}
    std::string_view bytes() const override { return bytes_; }

private:
    std::string bytes_;
};

// Bytes read with read(2) into an uninitialised heap block (no zero-fill pass).
class ReadBuffer final : public Buffer {
public:
    ReadBuffer(std::unique_ptr<char[]> data, std::size_t size, std::string origin)
        : Buffer(std::move(origin)), data_(std::move(data)), size_(size) {}
    std::string_view bytes() const override { return {data_.get(), size_}; }

private:
    std::unique_ptr<char[]> data_;
    std::size_t size_;
};

}  // namespace

std::shared_ptr<const Buffer> own_bytes(std::string bytes, std::string origin) {
    return std::make_shared<OwnedBuffer>(std::move(bytes), std::move(origin));
}

Result<std::shared_ptr<const Buffer>> load_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
    KILN_TRY(OpenedFile file, open_regular_file(path));  // no FIFO, no atime update
    return load_opened_file(file, path.string(), max_bytes);
}

Result<std::shared_ptr<const Buffer>> load_opened_file(const OpenedFile& file, const std::string& origin,
                                                       std::uint64_t max_bytes) {
    const std::string& path = origin;
    if (file.size > max_bytes)
        return make_error(
            Errc::limit,
            "a file of " + std::to_string(file.size) + " bytes is over the limit of " + std::to_string(max_bytes),
            path);
    auto size = static_cast<std::size_t>(file.size);
    if (size == 0) return own_bytes({}, path);
    // One read(2) into one block, never a mapping: a mapped file that its writer truncates kills
    // the reader with SIGBUS, and one rewritten in place would change bytes after the decoder
    // checked them. The block is a snapshot; large str/bytes values are views into it.
    std::unique_ptr<char[]> data(new (std::nothrow) char[size]);
    if (!data)
        return make_error(Errc::limit, "not enough memory to read " + std::to_string(size) + " bytes", path,
                          "free memory or open a smaller file");
    std::size_t got = 0;
    while (got < size) {
        ssize_t n = ::read(file.fd.get(), data.get() + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return io_error("cannot read", path, errno);
        if (n == 0)
            return make_error(Errc::io,
                              "the file shrank from " + std::to_string(size) + " to " + std::to_string(got) +
                                  " bytes while it was read (another process is writing it)",
                              path, "open it again once the writer is done");
        got += static_cast<std::size_t>(n);
    }
    return std::shared_ptr<const Buffer>(std::make_shared<ReadBuffer>(std::move(data), size, path));
}

}  // namespace kiln::pickle
