#pragma once
// The one way Kiln opens a file it reads out of a cache or a log: other processes write those
// directories, and a user can point Kiln anywhere. Only regular files are read (a FIFO, socket,
// device or directory is refused with a clear error before it can block or stream forever: the open
// itself is non-blocking), and reads leave the file's atime alone where the kernel permits
// (O_NOATIME: the file's owner or CAP_FOWNER), so looking at a cache never changes what LRU
// eviction would remove.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace kiln {

struct OpenedFile {
    UniqueFd fd;
    std::uint64_t size = 0;   // st_size when opened
    bool atime_kept = false;  // O_NOATIME was granted
};

// Errc::not_found (no such file), Errc::invalid_argument (not a regular file: names what it is),
// Errc::io otherwise.
Result<OpenedFile> open_regular_file(const std::filesystem::path& path);
// The same relative to a directory descriptor, never following a symlink at `name`.
Result<OpenedFile> open_regular_file_at(int dir_fd, const char* name, const std::string& context);

// `rel` ('/'-separated, relative, no "." or "..") beneath the directory `root_fd`, no component
// followed if it is a symlink: reads that must stay in the tree a command holds open even when the
// root's path is swapped meanwhile. `err`, when given, gets the errno of a failed open (EACCES: a
// file this user may not read), 0 otherwise.
Result<OpenedFile> open_regular_file_beneath(int root_fd, std::string_view rel, const std::string& context,
                                             int* err = nullptr);
// The whole of an open file (at most `max_bytes`), as read_regular_file.
Result<std::string> read_opened_file(const OpenedFile& file, const std::string& context,
                                     std::uint64_t max_bytes = 1ull << 30);

// Reads the whole file (at most `max_bytes`: a larger one is Errc::limit). A file that shrinks while
// it is read is an Errc::io error saying so.
Result<std::string> read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes = 1ull << 30);
// Reads up to `n` bytes from the start of an open file (short at EOF).
Result<std::string> read_prefix(const OpenedFile& file, std::size_t n, const std::string& context);

// Whether this process may read `path` (a file or directory) without updating atimes: O_NOATIME is
// granted only to the owner or with CAP_FOWNER. False also when `path` cannot be opened.
bool can_keep_atime(const std::filesystem::path& path);
// The hot path of a scan: reads up to `n` bytes from the start of `name` in `dir_fd` into `buf` with
// the same rules (never a symlink, never blocks on a special file, O_NOATIME where permitted) in
// four system calls and no allocation. Returns the bytes read, or the errno (ELOOP for a symlink,
// EINVAL for a file that is not regular) as a negative number.
long read_head_at(int dir_fd, const char* name, char* buf, std::size_t n);
// The error for a path that is not the file (or directory) a command wants: Errc::not_found with
// `missing` when nothing is there, else Errc::invalid_argument saying what is there ("a FIFO (named
// pipe)", "a socket", ...), so that a FIFO is never reported as missing.
Error wrong_path_error(const std::filesystem::path& path, const std::string& missing);

// "a FIFO", "a directory", "a socket", ... for a st_mode.
std::string_view file_type_name(unsigned mode);

}  // namespace kiln
