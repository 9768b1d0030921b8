#pragma once
// Reading beneath an opened root (inductor::OpenedRoot) through its descriptor: what commands list
// and read under the cache they were given, never by the root's path again (issue 44), so a root
// renamed or swapped for a symlink after the open never sends them to another directory. No
// component is followed if it is a symlink; files are read with util/regular_file's rules.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inductor/opened_root.hpp"
#include "util/regular_file.hpp"
#include "util/result.hpp"

namespace kiln::inductor {

struct EntryBeneath {
    std::string name;
    bool directory = false;  // a directory (never a symlink to one)
    bool regular = false;    // a regular file (never a symlink to one)
};

// The entries of the directory `rel` ('/'-separated, relative; "" the root itself), "." and ".."
// left out, in the directory's order. Errc::not_found when there is no such directory,
// Errc::invalid_argument when a component is a symlink or no directory, Errc::io otherwise.
Result<std::vector<EntryBeneath>> list_beneath(const OpenedRoot& root, std::string_view rel);
// `rel` is a directory beneath the root (false for a symlink to one, or nothing there).
bool is_directory_beneath(const OpenedRoot& root, std::string_view rel);
// `rel` is a regular file beneath the root (false for a symlink to one).
bool is_regular_beneath(const OpenedRoot& root, std::string_view rel);
// `rel`'s mtime in ns since the epoch (never a symlink's target); nullopt when it cannot be stat'ed.
std::optional<std::int64_t> mtime_ns_beneath(const OpenedRoot& root, std::string_view rel);
// `rel` opened beneath the root (open_regular_file_beneath), errors naming path_beneath(root, rel).
Result<OpenedFile> open_beneath(const OpenedRoot& root, std::string_view rel);
// The whole of `rel` (at most `max_bytes`), as read_regular_file reads a path.
Result<std::string> read_beneath(const OpenedRoot& root, std::string_view rel, std::uint64_t max_bytes);
// The path reports name for `rel`: the root's path as opened, '/', `rel`.
std::string path_beneath(const OpenedRoot& root, std::string_view rel);

}  // namespace kiln::inductor
