#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <thread>

namespace kiln {

std::string temp_suffix() {
    auto tid = std::hash<std::thread::id>{}(std::this_thread::get_id());
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "." + std::string temporaries.
    std::string s(1, '.');
    s += std::to_string(::getpid());
    s += '.';
    s += std::to_string(tid);
    return s;
}

Status fsync_file(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return io_error("open for fsync", path.string(), errno);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return io_error("fsync", path.string(), err);
    return ok_status();
}

namespace {

// Writes everything, fsyncs and closes `fd` (always, whatever fails); unlinks `tmp` on failure.
Status finish_temporary(int fd, const std::filesystem::path& tmp, std::string_view content) {
    const char* failed = nullptr;
    int err = 0;
    std::size_t off = 0;
    while (off < content.size()) {
        ssize_t n = ::write(fd, content.data() + off, content.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            failed = "write";
            err = n < 0 ? errno : EIO;
            break;
        }
        off += static_cast<std::size_t>(n);
    }
    // fsync before rename: otherwise a power loss can leave the new name pointing at empty data.
    if (!failed && ::fsync(fd) != 0) failed = "fsync", err = errno;
    if (::close(fd) != 0 && !failed) failed = "close", err = errno;
    if (!failed) return ok_status();
    ::unlink(tmp.c_str());
    return io_error(failed, tmp.string(), err);
}

}  // namespace

Status write_atomic(const std::filesystem::path& path, std::string_view content, bool make_dirs) {
    std::error_code ec;
    if (make_dirs) {
        std::filesystem::create_directories(path.parent_path(), ec);
        if (ec) return io_error("create directory", path.parent_path().string(), ec.value());
    }
    auto tmp = path.parent_path() / (temp_suffix() + ".tmp");
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return io_error("create temporary file", tmp.string(), errno);
    KILN_CHECK(finish_temporary(fd, tmp, content));
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        int err = errno;
        ::unlink(tmp.c_str());
        return io_error("rename temporary file onto", path.string(), err);
    }
    return ok_status();
}

}  // namespace kiln
