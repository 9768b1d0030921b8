#pragma once
// Temporary folders a process makes (a blob unpacked into $TMPDIR/kiln-blob-XXXXXX, shared timings in
// kiln-share-XXXXXX) and temporary files (every atomic write's `.<pid>.<random>.tmp`, a blob `bundle
// pack` writes, a file `bundle unpack` writes into a key dir) are removed by their owners; a process
// ended by SIGTERM, SIGINT or SIGHUP runs no destructor. Registered folders and files are removed by a
// signal handler too (async-signal-safe: openat / getdents64 / unlinkat over fixed slots, no
// allocation), which then lets the signal end the process as it would have (default action
// re-raised, or the handler that was there before).
#include <filesystem>
#include <string>

namespace kiln {

// The folder temporaries go to: $TMPDIR, else $TEMP, else $TMP, else /tmp (Python's tempfile order,
// which is also where torch puts its default cache).
std::filesystem::path temp_directory();

// Whether `path` lies in temp_directory() (lexically).
bool is_under_temp_directory(const std::filesystem::path& path);

// Removes `dir` (recursively) if the process is ended by SIGTERM, SIGINT or SIGHUP while it is
// registered. Installs the handlers on first use (a signal the process ignores stays ignored). At most
// 64 folders at a time; beyond that, or for a path longer than PATH_MAX, nothing is registered (the
// folder is still removed by its owner in the normal case).
class TempCleanup {
public:
    TempCleanup() = default;
    explicit TempCleanup(const std::filesystem::path& dir);
    TempCleanup(TempCleanup&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }
    TempCleanup& operator=(TempCleanup&& o) noexcept;
    TempCleanup(const TempCleanup&) = delete;
    TempCleanup& operator=(const TempCleanup&) = delete;
    ~TempCleanup() { release(); }
    // Unregisters (the owner removed the folder itself, or keeps it).
    void release();
    bool registered() const { return slot_ >= 0; }

private:
    int slot_ = -1;
};

// The same for one temporary file: `name` (no '/') in the folder `dir_fd`, of which it keeps a
// descriptor of its own, so that the file is found even when the folder's path changes. The handler
// only unlinks it (never a folder that took its name). Register before the file is created (the
// caller's O_EXCL open): a file that exists is then always registered. At most 256 at a time.
class TempFileCleanup {
public:
    TempFileCleanup() = default;
    TempFileCleanup(int dir_fd, const std::string& name);
    TempFileCleanup(TempFileCleanup&& o) noexcept : slot_(o.slot_) { o.slot_ = -1; }
    TempFileCleanup& operator=(TempFileCleanup&& o) noexcept;
    TempFileCleanup(const TempFileCleanup&) = delete;
    TempFileCleanup& operator=(const TempFileCleanup&) = delete;
    ~TempFileCleanup() { release(); }
    // Unregisters (the file was renamed into place or removed).
    void release();
    bool registered() const { return slot_ >= 0; }

private:
    int slot_ = -1;
};

}  // namespace kiln
