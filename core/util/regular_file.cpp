#include "util/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#if defined(__linux__) && defined(SYS_openat2) && __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define KILN_HAVE_OPENAT2 1
#endif

namespace kiln {

namespace {

Result<OpenedFile> finish_open(int fd, const std::string& context, bool atime_kept) {
    UniqueFd owned(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0) return io_error("cannot stat", context, errno);
    if (!S_ISREG(st.st_mode))
        return make_error(
            Errc::invalid_argument,
            "not a regular file but " + std::string(file_type_name(st.st_mode)) + "; Kiln reads only files", context,
            "give the path of a cache file");
    // Back to blocking reads: O_NONBLOCK only kept the open from waiting on a FIFO's writer. The status
    // flags F_SETFL sets are known (O_NOATIME when it was granted): no F_GETFL first.
    ::fcntl(fd, F_SETFL, atime_kept ? O_NOATIME : 0);
    OpenedFile out;
    out.fd = std::move(owned);
    out.size = static_cast<std::uint64_t>(st.st_size);
    out.atime_kept = atime_kept;
    return out;
}

Result<OpenedFile> open_with(int dir_fd, const char* name, const std::string& context, int extra,
                             int* err_out = nullptr) {
    const int base = O_RDONLY | O_CLOEXEC | O_NONBLOCK | extra;
    int fd = ::openat(dir_fd, name, base | O_NOATIME);
    bool atime_kept = fd >= 0;
    if (fd < 0 && errno == EPERM) fd = ::openat(dir_fd, name, base);  // not the owner: atime may change
    if (fd < 0) {
        int err = errno;
        if (err_out) *err_out = err;
        if (err == ENOENT) return make_error(Errc::not_found, "no such file", context);
        if (err == ELOOP && (extra & O_NOFOLLOW))
            return make_error(Errc::invalid_argument, "a symlink; not followed", context);
        return io_error("cannot open", context, err);
    }
    return finish_open(fd, context, atime_kept);
}

}  // namespace

Error wrong_path_error(const std::filesystem::path& path, const std::string& missing) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return make_error(Errc::not_found, missing, path.string(), "check the path");
    return make_error(Errc::invalid_argument, missing + ": it is " + std::string(file_type_name(st.st_mode)),
                      path.string(), "give the path of a file (or directory) from a cache");
}

std::string_view file_type_name(unsigned mode) {
    switch (mode & S_IFMT) {
        case S_IFREG: return "a regular file";
        case S_IFDIR: return "a directory";
        case S_IFIFO: return "a FIFO (named pipe)";
        case S_IFSOCK: return "a socket";
        case S_IFCHR: return "a character device";
        case S_IFBLK: return "a block device";
        case S_IFLNK: return "a symlink";
        default: return "a special file";
    }
}

bool can_keep_atime(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOATIME);
    if (fd < 0) return false;
    ::close(fd);
    return true;
}

Result<OpenedFile> open_regular_file(const std::filesystem::path& path) {
    return open_with(AT_FDCWD, path.c_str(), path.string(), 0);
}

Result<OpenedFile> open_regular_file_at(int dir_fd, const char* name, const std::string& context) {
    return open_with(dir_fd, name, context, O_NOFOLLOW);
}

namespace {

// `rel` opened beneath `root_fd` by one openat2 that follows no symlink at any component and never
// leaves the root: what the walk below checks a component at a time with an O_PATH open (and a close)
// each. At a million files the walk was most of the check's system time (issue 44). -1 when it fails
// for any reason: the walk then gives the exact error, or opens where the kernel has no openat2.
int open_beneath_at_once(int root_fd, const std::string& rel, bool& atime_kept) {
#if defined(KILN_HAVE_OPENAT2)
    static std::atomic<bool> unavailable{false};  // ENOSYS, or a sandbox that refuses it
    if (unavailable.load(std::memory_order_relaxed)) return -1;
    open_how how{};
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    for (bool noatime : {true, false}) {
        how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | (noatime ? O_NOATIME : 0);
        const long fd = ::syscall(SYS_openat2, root_fd, rel.c_str(), &how, sizeof how);
        if (fd >= 0) {
            atime_kept = noatime;
            return static_cast<int>(fd);
        }
        if (errno == ENOSYS || (errno == EPERM && !noatime)) {
            unavailable.store(true, std::memory_order_relaxed);
            return -1;
        }
        if (errno != EPERM) return -1;  // EPERM with O_NOATIME: not the owner, open without it
    }
#else
    (void)root_fd;
    (void)rel;
    (void)atime_kept;
#endif
    return -1;
}

// Each '/'-separated part non-empty and neither "." nor "..": what the walk accepts (openat2 would take
// "a//b" and "a/./b" too).
bool plain_relative_path(std::string_view rel) {
    for (;;) {
        const auto slash = rel.find('/');
        const std::string_view part = rel.substr(0, slash);
        if (part.empty() || part == "." || part == "..") return false;
        if (slash == std::string_view::npos) return true;
        rel.remove_prefix(slash + 1);
    }
}

}  // namespace

Result<OpenedFile> open_regular_file_beneath(int root_fd, std::string_view rel, const std::string& context, int* err) {
    if (err) *err = 0;
    if (plain_relative_path(rel)) {
        bool atime_kept = false;
        if (const int fd = open_beneath_at_once(root_fd, std::string(rel), atime_kept); fd >= 0)
            return finish_open(fd, context, atime_kept);
    }
    UniqueFd dir;  // the directory reached so far (none yet: root_fd)
    for (;;) {
        auto slash = rel.find('/');
        std::string part(rel.substr(0, slash));
        if (part.empty() || part == "." || part == "..")
            return make_error(Errc::invalid_argument, "not a path beneath the cache root", context);
        int at = dir.valid() ? dir.get() : root_fd;
        if (slash == std::string_view::npos) return open_with(at, part.c_str(), context, O_NOFOLLOW, err);
        // O_PATH: passing through needs search permission only, as a path lookup does.
        int fd = ::openat(at, part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            if (err) *err = e;
            if (e == ENOENT) return make_error(Errc::not_found, "no such file", context);
            if (e == ELOOP || e == ENOTDIR)
                return make_error(Errc::invalid_argument, "a path component is a symlink or no directory; not followed",
                                  context);
            return io_error("cannot open", context, e);
        }
        dir.reset(fd);
        rel.remove_prefix(slash + 1);
    }
}

Result<std::string> read_opened_file(const OpenedFile& f, const std::string& context, std::uint64_t max_bytes) {
    if (f.size > max_bytes)
        return make_error(
            Errc::limit,
            "a file of " + std::to_string(f.size) + " bytes is over the limit of " + std::to_string(max_bytes),
            context);
    KILN_TRY(std::string data, read_prefix(f, static_cast<std::size_t>(f.size), context));
    if (data.size() < f.size)
        return make_error(Errc::io,
                          "the file shrank from " + std::to_string(f.size) + " to " + std::to_string(data.size()) +
                              " bytes while it was read (another process is writing it)",
                          context, "read it again once the writer is done");
    return data;
}

long read_head_at(int dir_fd, const char* name, char* buf, std::size_t n) {
    const int base = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW;
    int fd = ::openat(dir_fd, name, base | O_NOATIME);
    if (fd < 0 && errno == EPERM) fd = ::openat(dir_fd, name, base);
    if (fd < 0) return -static_cast<long>(errno);
    UniqueFd owned(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0) return -static_cast<long>(errno);
    if (!S_ISREG(st.st_mode)) return -static_cast<long>(EINVAL);
    std::size_t got = 0;
    while (got < n) {
        ssize_t r = ::read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -static_cast<long>(errno);
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    return static_cast<long>(got);
}

Result<std::string> read_prefix(const OpenedFile& file, std::size_t n, const std::string& context) {
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
        ssize_t r = ::pread(file.fd.get(), out.data() + got, n - got, static_cast<off_t>(got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return io_error("cannot read", context, errno);
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    out.resize(got);
    return out;
}

Result<std::string> read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
    KILN_TRY(OpenedFile f, open_regular_file(path));
    return read_opened_file(f, path.string(), max_bytes);
}

}  // namespace kiln
