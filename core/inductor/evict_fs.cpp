#include "inductor/evict_fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace kiln::inductor::evict_fs {

Result<UniqueFd> open_dir_beneath(int root_fd, std::string_view rel_dir, std::string_view context, bool create) {
    UniqueFd cur(::dup(root_fd));
    if (!cur.valid()) return io_error("cannot duplicate descriptor", std::string(context), errno);
    while (!rel_dir.empty()) {
        auto slash = rel_dir.find('/');
        std::string part(rel_dir.substr(0, slash));
        if (part.empty() || part == "." || part == "..")
            return make_error(Errc::invalid_argument, "path leaves the cache root", std::string(context));
        int fd = ::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT && create && (::mkdirat(cur.get(), part.c_str(), 0777) == 0 || errno == EEXIST))
            fd = ::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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

namespace {

bool same(const struct stat& st, Identity id) {
    return id.ino == 0 ||
           (static_cast<std::uint64_t>(st.st_dev) == id.dev && static_cast<std::uint64_t>(st.st_ino) == id.ino);
}

Error changed(std::string_view context) {
    return make_error(Errc::busy, "changed since the scan (replaced or moved); left alone", std::string(context),
                      "run evict again to see the cache as it is now");
}

void note(Removal& r, Error e) {
    if (r.status.ok()) r.status = std::move(e);
}

// Removes everything inside the open directory `fd` (closed here).
void remove_contents(int fd, std::string_view context, Removal& out) {
    DIR* dir = ::fdopendir(fd);
    if (!dir) {
        note(out, io_error("cannot list directory for removal", std::string(context), errno));
        ::close(fd);
        return;
    }
    while (struct dirent* e = ::readdir(dir)) {
        const char* n = e->d_name;
        if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0))) continue;
        std::string sub_context = std::string(context) + "/" + n;
        struct stat st;
        if (::fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT) note(out, io_error("cannot stat", sub_context, errno));
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            Removal sub = remove_tree_at(fd, n, {}, sub_context);
            out.freed += sub.freed;
            if (!sub.status.ok()) note(out, std::move(sub.status.error()));
            continue;
        }
        // Regular files and symlinks alike: unlinkat removes the link itself, never its target.
        if (::unlinkat(fd, n, 0) != 0) {
            if (errno != ENOENT) note(out, io_error("cannot remove", sub_context, errno));
            continue;
        }
        if (S_ISREG(st.st_mode)) out.freed += static_cast<std::uint64_t>(st.st_size);
    }
    ::closedir(dir);
}

}  // namespace

Removal remove_tree_at(int parent_fd, const char* name, Identity expected, std::string_view context) {
    Removal out;
    int fd = ::openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        if (err == ELOOP || err == ENOTDIR) out.status = changed(context);
        else out.status = io_error("cannot open directory for removal", std::string(context), err);
        return out;
    }
    struct stat st;
    if (::fstat(fd, &st) != 0 || !same(st, expected)) {
        ::close(fd);
        out.status = changed(context);
        return out;
    }
    remove_contents(fd, context, out);
    if (::unlinkat(parent_fd, name, AT_REMOVEDIR) != 0 && errno != ENOENT) {
        int err = errno;
        // The first error says why the directory could not go; a bare ENOTEMPTY only repeats it.
        if (out.status.ok() && err == ENOTEMPTY)
            out.status = make_error(Errc::io, "not empty after removal (a process wrote into it meanwhile)",
                                    std::string(context), "run evict again");
        else note(out, io_error("cannot remove directory", std::string(context), err));
    }
    return out;
}

Removal remove_file_at(int parent_fd, const char* name, Identity expected, std::string_view context) {
    Removal out;
    struct stat st;
    if (::fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        int err = errno;
        if (err != ENOENT) out.status = io_error("cannot stat", std::string(context), err);
        return out;  // gone already (Inductor or another evict)
    }
    if (!S_ISREG(st.st_mode)) {
        out.status =
            make_error(Errc::invalid_argument, "not a regular file any more; left alone", std::string(context));
        return out;
    }
    if (!same(st, expected)) {
        out.status = changed(context);
        return out;
    }
    if (::unlinkat(parent_fd, name, 0) != 0) {
        out.status = io_error("cannot remove", std::string(context), errno);
        return out;
    }
    out.freed = static_cast<std::uint64_t>(st.st_size);
    return out;
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
