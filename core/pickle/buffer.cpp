#include "pickle/buffer.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace kiln::pickle {
namespace {

// Files up to this size are read into memory; larger ones are mapped.
constexpr std::size_t kReadLimit = std::size_t{64} << 20;

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

class MappedBuffer final : public Buffer {
public:
    MappedBuffer(void* addr, std::size_t size, std::string origin) : Buffer(std::move(origin)), addr_(addr), size_(size) {}
    ~MappedBuffer() override {
        if (addr_) munmap(addr_, size_);
    }
    MappedBuffer(const MappedBuffer&) = delete;
    MappedBuffer& operator=(const MappedBuffer&) = delete;
    std::string_view bytes() const override { return {static_cast<const char*>(addr_), size_}; }

private:
    void* addr_;
    std::size_t size_;
};

}  // namespace

std::shared_ptr<const Buffer> own_bytes(std::string bytes, std::string origin) {
    return std::make_shared<OwnedBuffer>(std::move(bytes), std::move(origin));
}

Result<std::shared_ptr<const Buffer>> map_file(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return io_error("cannot open", path.string(), errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int err = errno;
        ::close(fd);
        return io_error("cannot stat", path.string(), err);
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return make_error(Errc::invalid_argument, "not a regular file", path.string());
    }
    auto size = static_cast<std::size_t>(st.st_size);
    if (size == 0) {
        ::close(fd);
        return own_bytes({}, path.string());
    }
    if (size <= kReadLimit) {
        // Graph entries are small (<= ~10 MB): one read(2) beats a page fault per 4 KiB page
        // of a mapping, and large str/bytes values are still views into this one block.
        std::unique_ptr<char[]> data(new char[size]);
        std::size_t got = 0;
        while (got < size) {
            ssize_t n = ::read(fd, data.get() + got, size - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                int err = n < 0 ? errno : EIO;
                ::close(fd);
                return io_error("cannot read", path.string(), err);
            }
            got += static_cast<std::size_t>(n);
        }
        ::close(fd);
        return std::shared_ptr<const Buffer>(std::make_shared<ReadBuffer>(std::move(data), size, path.string()));
    }
    void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int err = errno;
    ::close(fd);  // the mapping stays valid without the descriptor
    if (addr == MAP_FAILED) return io_error("cannot map", path.string(), err);
    // Decoding reads the file front to back once.
    // no madvise: most pages (bytes payloads) are never touched
    return std::shared_ptr<const Buffer>(std::make_shared<MappedBuffer>(addr, size, path.string()));
}

}  // namespace kiln::pickle
