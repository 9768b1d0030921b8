#include "autotune/file_util.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>

namespace fs = std::filesystem;

namespace kiln::autotune {

Result<FileLock> FileLock::acquire(const fs::path& path, std::chrono::milliseconds timeout) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return io_error("cannot open lock file", path.string(), errno);
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            int err = errno;
            ::close(fd);
            return io_error("flock failed", path.string(), err);
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            ::close(fd);
            return make_error(Errc::busy, "timed out waiting for the lock", path.string(),
                              "another tuner holds it; if none runs, the lock is stale only while a process keeps it open");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return FileLock(fd);
}

FileLock::~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

Status write_atomic(const fs::path& path, std::string_view content) {
    static std::atomic<unsigned> counter{0};
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    fs::path tmp = path.parent_path() /
                   ("." + path.filename().string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++));
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return io_error("cannot create temporary file", tmp.string(), errno);
    size_t off = 0;
    while (off < content.size()) {
        ssize_t n = ::write(fd, content.data() + off, content.size() - off);
        if (n < 0) {
            if (errno == EINTR) continue;
            int err = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            return io_error("write failed", tmp.string(), err);
        }
        off += static_cast<size_t>(n);
    }
    if (::close(fd) != 0) {
        int err = errno;
        ::unlink(tmp.c_str());
        return io_error("close failed", tmp.string(), err);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        int err = errno;
        ::unlink(tmp.c_str());
        return io_error("rename failed", path.string(), err);
    }
    return ok_status();
}

}  // namespace kiln::autotune
