#pragma once
// File-system steps of eviction that must not follow symlinks nor leave the root: every path is
// opened component by component from the root's descriptor with O_NOFOLLOW.
#include <cstdint>
#include <string_view>

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
// With `create`, missing directories are made (mode 0777 less the umask, like os.makedirs).
Result<Fd> open_dir_beneath(int root_fd, std::string_view rel_dir, std::string_view context, bool create = false);

// What a removal did: the bytes of the regular files it removed, and the first error, if any. After
// an error the rest is still removed where possible, so `freed` counts what is really gone.
struct Removal {
    std::uint64_t freed = 0;
    Status status;
};

// The identity a scan recorded (st_dev, st_ino); ino 0 means unknown (not checked).
struct Identity {
    std::uint64_t dev = 0;
    std::uint64_t ino = 0;
};

// Removes the directory `name` in `parent_fd` with everything in it, if it is still the directory
// `expected` names (else Errc::busy "changed since the scan", nothing removed); symlinks inside are
// removed as links, never followed.
Removal remove_tree_at(int parent_fd, const char* name, Identity expected, std::string_view context);

// Removes the regular file `name` in `parent_fd` if it is still the file `expected` names (refuses
// anything else). A file already gone frees 0 bytes and is no error.
Removal remove_file_at(int parent_fd, const char* name, Identity expected, std::string_view context);

// Takes locks/<key>.lock with flock(LOCK_EX | LOCK_NB) if the file exists. The returned Fd holds the
// lock until it is destroyed (invalid Fd: no lock file). Errc::busy when another process holds it.
Result<Fd> try_lock_key(int root_fd, std::string_view key, std::string_view context);

}  // namespace kiln::inductor::evict_fs
