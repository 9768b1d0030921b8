#pragma once
// File-system steps of eviction that must not follow symlinks nor leave the root: every path is
// opened component by component from the root's descriptor with O_NOFOLLOW.
#include <cstdint>
#include <string_view>

#include "util/file_lock.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace kiln::inductor::evict_fs {

// Opens `rel_dir` ('/'-separated, relative, no "." or "..") beneath `root_fd`, refusing symlinks.
// With `create`, missing directories are made (mode 0777 less the umask, like os.makedirs).
Result<UniqueFd> open_dir_beneath(int root_fd, std::string_view rel_dir, std::string_view context, bool create = false);

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

// Takes torch's locks/<key>.lock without waiting if the file exists; held until destroyed (no lock
// file: a lock that holds nothing). Errc::busy when another process holds it.
Result<FileLock> try_lock_key(int root_fd, std::string_view key, std::string_view context);

}  // namespace kiln::inductor::evict_fs
