#include "inductor/beneath_root.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>

#include "inductor/evict_fs.hpp"
#include "util/unique_fd.hpp"

namespace kiln::inductor {

namespace {

// A descriptor of its own (its own offset: never a dup of the root's, which readdir would move).
Result<UniqueFd> open_listable(const OpenedRoot& root, std::string_view rel) {
    if (!rel.empty()) return evict_fs::open_dir_beneath(root.fd, rel, path_beneath(root, rel));
    UniqueFd fd(::openat(root.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) return io_error("cannot open directory", root.path.string(), errno);
    return fd;
}

// stat of `rel` beneath the root without following a symlink at its last component.
bool lstat_beneath(const OpenedRoot& root, std::string_view rel, struct stat& st) {
    const auto slash = rel.rfind('/');
    const std::string name(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
    if (name.empty() || name == "." || name == "..") return false;
    if (slash == std::string_view::npos) return ::fstatat(root.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    auto dir = evict_fs::open_dir_beneath(root.fd, rel.substr(0, slash), rel);
    return dir.ok() && ::fstatat(dir->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
}

}  // namespace

std::string path_beneath(const OpenedRoot& root, std::string_view rel) {
    std::string out = root.path.string();
    if (rel.empty()) return out;
    if (out.empty() || out.back() != '/') out += '/';
    out += rel;
    return out;
}

Result<std::vector<EntryBeneath>> list_beneath(const OpenedRoot& root, std::string_view rel) {
    auto opened = open_listable(root, rel);
    if (!opened) {
        // open_dir_beneath says ENOENT as an io error: a missing directory is not_found here.
        struct stat st {};
        if (!rel.empty() && !lstat_beneath(root, rel, st) && errno == ENOENT)
            return make_error(Errc::not_found, "no such directory", path_beneath(root, rel));
        return opened.error();
    }
    DIR* dir = ::fdopendir(opened->get());
    if (!dir) return io_error("cannot list directory", path_beneath(root, rel), errno);
    opened->release();  // closedir closes it
    std::vector<EntryBeneath> out;
    errno = 0;
    while (const dirent* e = ::readdir(dir)) {
        const std::string_view name = e->d_name;
        if (name == "." || name == "..") continue;
        EntryBeneath entry{std::string(name), e->d_type == DT_DIR, e->d_type == DT_REG};
        if (e->d_type == DT_UNKNOWN) {  // file systems that do not say (some network ones): ask
            struct stat st {};
            if (::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                entry.directory = S_ISDIR(st.st_mode);
                entry.regular = S_ISREG(st.st_mode);
            }
        }
        out.push_back(std::move(entry));
    }
    const int err = errno;
    ::closedir(dir);
    if (err != 0) return io_error("cannot list directory", path_beneath(root, rel), err);
    return out;
}

bool is_directory_beneath(const OpenedRoot& root, std::string_view rel) {
    struct stat st {};
    return rel.empty() || (lstat_beneath(root, rel, st) && S_ISDIR(st.st_mode));
}

bool is_regular_beneath(const OpenedRoot& root, std::string_view rel) {
    struct stat st {};
    return lstat_beneath(root, rel, st) && S_ISREG(st.st_mode);
}

std::optional<std::int64_t> mtime_ns_beneath(const OpenedRoot& root, std::string_view rel) {
    struct stat st {};
    if (!lstat_beneath(root, rel, st)) return std::nullopt;
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

Result<OpenedFile> open_beneath(const OpenedRoot& root, std::string_view rel) {
    return open_regular_file_beneath(root.fd, rel, path_beneath(root, rel));
}

Result<std::string> read_beneath(const OpenedRoot& root, std::string_view rel, std::uint64_t max_bytes) {
    const std::string context = path_beneath(root, rel);
    KILN_TRY(OpenedFile file, open_regular_file_beneath(root.fd, rel, context));
    return read_opened_file(file, context, max_bytes);
}

}  // namespace kiln::inductor
