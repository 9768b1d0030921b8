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
Result<UniqueFd> open_dir_beneath(int root_fd, std::string_view rel_dir, std::string_view context);

// Removes the directory `name` in `parent_fd` with everything in it; symlinks inside are removed as
// links, never followed. Returns the bytes of the regular files removed.
Result<std::uint64_t> remove_tree_at(int parent_fd, const char* name, std::string_view context);

// Removes the regular file `name` in `parent_fd` (refuses anything else). Returns its size.
Result<std::uint64_t> remove_file_at(int parent_fd, const char* name, std::string_view context);

// Takes torch's locks/<key>.lock without waiting if the file exists; held until destroyed (no lock
// file: a lock that holds nothing). Errc::busy when another process holds it.
Result<FileLock> try_lock_key(int root_fd, std::string_view key, std::string_view context);

}  // namespace kiln::inductor::evict_fs
