#pragma once
// File-system steps of eviction that must not follow symlinks nor leave the root: every path is
// opened component by component from the root's descriptor with O_NOFOLLOW.
#include <cstdint>
#include <string_view>

#include <optional>

#include "util/file_lock.hpp"
#include "util/result.hpp"

namespace kiln::inductor::evict_fs {

// An open directory descriptor, closed on destruction.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    Fd& operator=(Fd&& o) noexcept;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd();
    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

// Opens `rel_dir` ('/'-separated, relative, no "." or "..") beneath `root_fd`, refusing symlinks.
Result<Fd> open_dir_beneath(int root_fd, std::string_view rel_dir, std::string_view context);

// Removes the directory `name` in `parent_fd` with everything in it; symlinks inside are removed as
// links, never followed. Returns the bytes of the regular files removed.
Result<std::uint64_t> remove_tree_at(int parent_fd, const char* name, std::string_view context);

// Removes the regular file `name` in `parent_fd` (refuses anything else). Returns its size.
Result<std::uint64_t> remove_file_at(int parent_fd, const char* name, std::string_view context);

// Takes torch's locks/<key>.lock without waiting if the file exists; held until destroyed (nullopt:
// no lock file). Errc::busy when another process holds it.
Result<std::optional<FileLock>> try_lock_key(int root_fd, std::string_view key, std::string_view context);

}  // namespace kiln::inductor::evict_fs
