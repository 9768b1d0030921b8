#include "inductor/evict_fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace kiln::inductor::evict_fs {

Result<UniqueFd> open_dir_beneath(int root_fd, std::string_view rel_dir, std::string_view context) {
    UniqueFd cur(::dup(root_fd));
    if (!cur.valid()) return io_error("cannot duplicate descriptor", std::string(context), errno);
    while (!rel_dir.empty()) {
        auto slash = rel_dir.find('/');
        std::string part(rel_dir.substr(0, slash));
        if (part.empty() || part == "." || part == "..")
            return make_error(Errc::invalid_argument, "path leaves the cache root", std::string(context));
        int fd = ::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            if (err == ELOOP || err == ENOTDIR)
                return make_error(Errc::invalid_argument, "a path component is a symlink or no directory; not followed",
                                  std::string(context));
            return io_error("cannot open directory", std::string(context), err);
        }
        cur = UniqueFd(fd);
        if (slash == std::string_view::npos) break;
        rel_dir.remove_prefix(slash + 1);
    }
    return cur;
}

Result<std::uint64_t> remove_tree_at(int parent_fd, const char* name, std::string_view context) {
    int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return io_error("cannot open directory for removal", std::string(context), errno);
    DIR* dir = ::fdopendir(fd);
    if (!dir) {
        int err = errno;
        ::close(fd);
        return io_error("cannot list directory for removal", std::string(context), err);
    }
    std::uint64_t freed = 0;
    Status status;
    while (struct dirent* e = ::readdir(dir)) {
        const char* n = e->d_name;
        if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0))) continue;
        std::string sub_context = std::string(context) + "/" + n;
        struct stat st;
        if (::fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            status = io_error("cannot stat", sub_context, errno);
            break;
        }
        if (S_ISDIR(st.st_mode)) {
            auto r = remove_tree_at(fd, n, sub_context);
            if (!r.ok()) {
                status = std::move(r.error());
                break;
            }
            freed += *r;
        } else {
            // Regular files and symlinks alike: unlinkat removes the link itself, never its target.
            if (::unlinkat(fd, n, 0) != 0) {
                status = io_error("cannot remove", sub_context, errno);
                break;
            }
            if (S_ISREG(st.st_mode)) freed += static_cast<std::uint64_t>(st.st_size);
        }
    }
    ::closedir(dir);
    if (!status.ok()) return std::move(status.error());
    if (::unlinkat(parent_fd, name, AT_REMOVEDIR) != 0)
        return io_error("cannot remove directory", std::string(context), errno);
    return freed;
}

Result<std::uint64_t> remove_file_at(int parent_fd, const char* name, std::string_view context) {
    struct stat st;
    if (::fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        int err = errno;
        if (err == ENOENT) return std::uint64_t{0};  // gone already (Inductor or another evict)
        return io_error("cannot stat", std::string(context), err);
    }
    if (!S_ISREG(st.st_mode))
        return make_error(Errc::invalid_argument, "not a regular file any more; left alone", std::string(context));
    if (::unlinkat(parent_fd, name, 0) != 0) return io_error("cannot remove", std::string(context), errno);
    return static_cast<std::uint64_t>(st.st_size);
}

Result<FileLock> try_lock_key(int root_fd, std::string_view key, std::string_view context) {
    if (key.empty()) return FileLock();
    int locks = ::openat(root_fd, "locks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (locks < 0) return FileLock();  // no locks/ dir: nothing can hold a lock
    UniqueFd locks_fd(locks);
    const std::string name = std::string(key) + ".lock";
    auto lock = FileLock::try_lock_existing(locks_fd.get(), name.c_str());
    if (!lock && lock.error().code == Errc::busy)
        return make_error(Errc::busy, "locked by another process (locks/" + name + ")", std::string(context),
                          "a torch.compile run is using it; try again when it is done");
    if (!lock) return std::move(lock.error()).with_context(std::string(context));
    return lock;
}

}  // namespace kiln::inductor::evict_fs
