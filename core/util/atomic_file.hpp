#pragma once
// Atomic file replacement (Inductor's write_atomic, plus fsync): create a new temporary file
// `.<pid>.<random>.tmp` in the target's directory (O_EXCL: never one planted there, such as a hard
// link to a file elsewhere), fsync it, rename it over the target. A reader sees the old content or
// the new, never a partial file; a crash leaves only a hidden temporary (the scanner classifies it
// as `temp`), and a process ended by SIGTERM, SIGINT or SIGHUP removes it (util/temp_cleanup:
// every temporary is registered before it is created). Every file Kiln writes into a cache goes
// through here.
#include <filesystem>
#include <string>
#include <string_view>

#include "util/result.hpp"
#include "util/temp_cleanup.hpp"

namespace kiln {

// A temporary in a folder, written in full and fsynced, not yet renamed into place: removed when
// destroyed unless renamed() was called, and by the signal handler while it exists.
class PendingFile {
public:
    // Creates `.<pid>.<random>.tmp` in `dir_fd` (O_EXCL | O_NOFOLLOW), writes `content`, fsyncs it.
    // `context` names the target in errors.
    static Result<PendingFile> write(int dir_fd, std::string_view content, const std::string& context);
    PendingFile(PendingFile&& o) noexcept;
    PendingFile& operator=(PendingFile&&) = delete;
    PendingFile(const PendingFile&) = delete;
    ~PendingFile();
    const std::string& name() const { return name_; }
    // It was renamed away (or removed): nothing left to remove.
    void renamed();

private:
    PendingFile(int dir_fd, std::string name) : dir_fd_(dir_fd), name_(std::move(name)) {}
    int dir_fd_ = -1;  // the caller's, which outlives this
    std::string name_;
    TempFileCleanup cleanup_;
};

Status write_atomic(const std::filesystem::path& path, std::string_view content, bool make_dirs = true);
// The same in the open directory `dir_fd` (file `name`, no '/'): for writers that reached the
// directory without following symlinks (bundle unpack). `context` names the target in errors. With
// `replace` false an existing `name` is left alone and the call fails (Errc::busy).
Status write_atomic_at(int dir_fd, const std::string& name, std::string_view content, const std::string& context,
                       bool replace = true);

// Creates `name` in `dir_fd` (O_EXCL: never one that exists, a symlink included) and writes `content`,
// with no temporary, rename or fsync: only for a private tree that nobody else reads or writes while it
// is made and that is thrown away after use (a blob unpacked for reading: 200,000 small files took
// minutes, nearly all of it in the fsync and the temporaries' extra directory entries). Errc::busy when
// `name` exists; a file left half written by a failure is removed.
Status write_new_at(int dir_fd, const std::string& name, std::string_view content, const std::string& context);

// fsync an existing file (e.g. a compiler's output before it is renamed into place).
Status fsync_file(const std::filesystem::path& path);

// Unique per process and thread: ".<pid>.<tid>".
std::string temp_suffix();

}  // namespace kiln
