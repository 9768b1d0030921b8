#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <sys/random.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <utility>

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

// ".<pid>.<random>.tmp": the shape of torch's write_atomic temporaries (what the scanner calls a
// temporary), its second number random instead of the thread id.
std::string unpredictable_temp_name() {
    std::uint64_t r = 0;
    if (::getrandom(&r, sizeof r, 0) != static_cast<ssize_t>(sizeof r)) {
        static std::atomic<std::uint64_t> counter{0};  // no entropy yet: still unique in this process
        r = std::hash<std::thread::id>{}(std::this_thread::get_id()) ^ (counter.fetch_add(1) * 0x9e3779b97f4a7c15ULL) ^
            static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    }
    std::string s(1, '.');
    s += std::to_string(::getpid());
    s += '.';
    s += std::to_string(r);
    s += ".tmp";
    return s;
}

// Writes everything to `fd`, fsyncs and closes it (always, whatever fails).
Status finish_temporary(int fd, std::string_view content, const std::string& context) {
    const char* failed = nullptr;
    int err = 0;
    std::size_t off = 0;
    while (off < content.size()) {
        ssize_t n = ::write(fd, content.data() + off, content.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            failed = "write temporary file for";
            err = n < 0 ? errno : EIO;
            break;
        }
        off += static_cast<std::size_t>(n);
    }
    // fsync before rename: otherwise a power loss can leave the new name pointing at empty data.
    if (!failed && ::fsync(fd) != 0) failed = "fsync temporary file for", err = errno;
    if (::close(fd) != 0 && !failed) failed = "close temporary file for", err = errno;
    if (!failed) return ok_status();
    return io_error(failed, context, err);
}

}  // namespace

Status write_atomic(const std::filesystem::path& path, std::string_view content, bool make_dirs) {
    std::error_code ec;
    if (make_dirs) {
        std::filesystem::create_directories(path.parent_path(), ec);
        if (ec) return io_error("create directory", path.parent_path().string(), ec.value());
    }
    std::filesystem::path dir = path.parent_path().empty() ? "." : path.parent_path();
    int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) return io_error("open directory", dir.string(), errno);
    Status s = write_atomic_at(dir_fd, path.filename().string(), content, path.string());
    ::close(dir_fd);
    return s;
}

PendingFile::PendingFile(PendingFile&& o) noexcept
    : dir_fd_(o.dir_fd_), name_(std::exchange(o.name_, {})), cleanup_(std::move(o.cleanup_)) {}

PendingFile::~PendingFile() {
    if (!name_.empty()) ::unlinkat(dir_fd_, name_.c_str(), 0);
}

void PendingFile::renamed() {
    cleanup_.release();
    name_.clear();
}

Result<PendingFile> PendingFile::write(int dir_fd, std::string_view content, const std::string& context) {
    // A fresh file under a name nobody can guess, never one that exists: with O_TRUNC at a
    // predictable name, a hard link planted there would have Kiln overwrite the file it points to.
    // Registered for the signal handler before it exists, so that it never exists unregistered.
    for (int attempt = 0; attempt < 16; ++attempt) {
        PendingFile p(dir_fd, unpredictable_temp_name());
        p.cleanup_ = TempFileCleanup(dir_fd, p.name_);
        int fd = ::openat(dir_fd, p.name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            const int err = errno;
            p.cleanup_.release();
            const std::string name = std::exchange(p.name_, {});  // not ours: never unlinked
            if (err == EEXIST) continue;
            return io_error("create temporary file " + name + " for", context, err);
        }
        KILN_CHECK(finish_temporary(fd, content, context));
        return p;
    }
    return io_error("create temporary file for", context, EEXIST);
}

Status write_atomic_at(int dir_fd, const std::string& name, std::string_view content, const std::string& context,
                       bool replace) {
    KILN_TRY(PendingFile tmp, PendingFile::write(dir_fd, content, context));
    int rc = replace ? ::renameat(dir_fd, tmp.name().c_str(), dir_fd, name.c_str())
                     : ::renameat2(dir_fd, tmp.name().c_str(), dir_fd, name.c_str(), RENAME_NOREPLACE);
    if (rc != 0 && !replace && (errno == EINVAL || errno == ENOSYS)) {
        // A file system without RENAME_NOREPLACE: check, then rename (a narrow race instead of none).
        rc = ::faccessat(dir_fd, name.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0
                 ? (errno = EEXIST, -1)
                 : ::renameat(dir_fd, tmp.name().c_str(), dir_fd, name.c_str());
    }
    if (rc != 0) {
        int err = errno;  // the temporary is removed with `tmp`
        if (err == EEXIST)
            return make_error(Errc::busy, "a file appeared there meanwhile; left alone", context,
                              "run again to compare it");
        return io_error("rename temporary file onto", context, err);
    }
    tmp.renamed();
    return ok_status();
}

Status write_new_at(int dir_fd, const std::string& name, std::string_view content, const std::string& context) {
    int fd = ::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST)
        return make_error(Errc::busy, "already exists; left alone", context, "a private tree is written once");
    if (fd < 0) return io_error("create", context, errno);
    int err = 0;
    for (std::size_t off = 0; off < content.size() && !err;) {
        ssize_t n = ::write(fd, content.data() + off, content.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) err = n < 0 ? errno : EIO;
        else off += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0 && !err) err = errno;
    if (!err) return ok_status();
    ::unlinkat(dir_fd, name.c_str(), 0);
    return io_error("write", context, err);
}

}  // namespace kiln
