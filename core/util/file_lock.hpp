#pragma once
// An exclusive advisory lock on a file (flock): the code cache's per-key locks, the timing cache's
// read-merge-write, and eviction's check that torch is not using a group. The kernel releases it
// when the holder dies, so a killed process never leaves a stale lock behind.
#include <chrono>
#include <filesystem>
#include <optional>

#include "util/result.hpp"

namespace kiln {

class FileLock {
public:
    // Creates the file and its folders. Errc::timeout when another process holds it that long.
    static Result<FileLock> acquire(const std::filesystem::path& path,
                                    std::chrono::milliseconds timeout = std::chrono::minutes(2));
    // Locks the existing file `name` in the directory `dir_fd` without waiting, creating nothing and
    // following no symlink. nullopt when there is no such file; Errc::busy when another holds it.
    static Result<std::optional<FileLock>> try_lock_existing(int dir_fd, const char* name);
    FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    FileLock& operator=(FileLock&& other) noexcept;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    ~FileLock();

private:
    explicit FileLock(int fd) : fd_(fd) {}
    int fd_ = -1;
};

}  // namespace kiln
