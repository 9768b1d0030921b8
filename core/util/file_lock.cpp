#include "util/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <thread>

namespace kiln {

namespace {

// Waits up to `timeout` for the flock on `fd` (closed on failure).
Result<int> wait_for_flock(int fd, const std::string& context, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    auto pause = std::chrono::microseconds(200);
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            int err = errno;
            ::close(fd);
            return io_error("flock", context, err);
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            ::close(fd);
            return make_error(Errc::timeout,
                              "timed out after " + std::to_string(timeout.count()) + " ms waiting for the lock",
                              context, "another process holds it (the kernel frees it when that process ends)");
        }
        std::this_thread::sleep_for(pause);
        pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(20));
    }
    return fd;
}

}  // namespace

Result<FileLock> FileLock::acquire(const std::filesystem::path& path, std::chrono::milliseconds timeout) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) return io_error("create lock directory", path.parent_path().string(), ec.value());
    // O_CLOEXEC: a child we spawn must not inherit the lock and keep it past our death.
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return io_error("open lock file", path.string(), errno);
    KILN_TRY(int locked, wait_for_flock(fd, path.string(), timeout));
    return FileLock(locked);
}

Result<FileLock> FileLock::acquire_at(int dir_fd, const char* name, const std::string& context,
                                      std::chrono::milliseconds timeout) {
    int fd = ::openat(dir_fd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return io_error("open lock file", context, errno);
    KILN_TRY(int locked, wait_for_flock(fd, context, timeout));
    return FileLock(locked);
}

Result<FileLock> FileLock::try_lock_existing(int dir_fd, const char* name) {
    int fd = ::openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return FileLock();
    FileLock lock(fd);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK)
            return make_error(Errc::busy, std::string("locked by another process (") + name + ")");
        return io_error(std::string("flock ") + name, name, errno);
    }
    return lock;
}

}  // namespace kiln
