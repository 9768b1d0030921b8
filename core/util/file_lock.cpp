#include "util/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <thread>

#include "util/regular_file.hpp"

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
    const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    // The lock folder is opened without following a symlink at its last component and the lock
    // relative to it (O_NOFOLLOW): a planted locks/ link or a dangling <key>.lock link would have
    // Kiln create a file wherever it points.
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0 && errno == ENOENT) {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) return io_error("create lock directory", dir.string(), ec.value());
        dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (dfd < 0) {
        const int err = errno;
        struct stat st {};
        if ((err == ELOOP || err == ENOTDIR) && ::lstat(dir.c_str(), &st) == 0)  // O_DIRECTORY says ENOTDIR
            return make_error(Errc::invalid_argument,
                              S_ISLNK(st.st_mode) ? "the lock folder is a symbolic link; Kiln takes no lock through one"
                                                  : "the lock folder is " + std::string(file_type_name(st.st_mode)) +
                                                        ", not a directory",
                              dir.string(), "remove it (torch and Kiln create the folder again)");
        return io_error("open lock directory", dir.string(), err);
    }
    UniqueFd dir_fd(dfd);
    return acquire_at(dir_fd.get(), path.filename().c_str(), path.string(), timeout);
}

Result<FileLock> FileLock::acquire_at(int dir_fd, const char* name, const std::string& context,
                                      std::chrono::milliseconds timeout) {
    // O_NONBLOCK: a FIFO planted at the name must not block the open (it is refused below).
    int fd = ::openat(dir_fd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int err = errno;
        if (err == ELOOP)
            return make_error(Errc::invalid_argument, "the lock file is a symbolic link; Kiln follows none", context,
                              "remove the link (the lock is an empty file anyone may create again)");
        return io_error("open lock file", context, err);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return io_error("stat lock file", context, err);
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        return make_error(Errc::invalid_argument,
                          "the lock file is " + std::string(file_type_name(st.st_mode)) + ", not a file", context,
                          "remove it (the lock is an empty file anyone may create again)");
    }
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
