#pragma once
// An exclusive advisory lock on a file (flock): the code cache's per-key locks, the timing cache's
// read-merge-write, and eviction's check that torch is not using a group. The kernel releases it
// when the holder dies, so a killed process never leaves a stale lock behind.
#include <chrono>
#include <filesystem>
#include <string>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace kiln {

class FileLock {
public:
    // Creates the file and its folders. Errc::timeout when another process holds it that long.
    static Result<FileLock> acquire(const std::filesystem::path& path,
                                    std::chrono::milliseconds timeout = std::chrono::minutes(2));
    // The same for the file `name` in the directory `dir_fd` (created if missing, never through a
    // symlink): a lock inside a folder reached without following symlinks (a quarantine's).
    static Result<FileLock> acquire_at(int dir_fd, const char* name, const std::string& context,
                                       std::chrono::milliseconds timeout = std::chrono::minutes(2));
    // Locks the existing file `name` in the directory `dir_fd` without waiting, creating nothing and
    // following no symlink. No such file: a lock that holds nothing; Errc::busy when another holds it.
    static Result<FileLock> try_lock_existing(int dir_fd, const char* name);
    FileLock() = default;  // holds nothing
    bool held() const { return fd_.valid(); }

private:
    explicit FileLock(int fd) : fd_(fd) {}
    UniqueFd fd_;  // closing the last descriptor releases the flock
};

}  // namespace kiln
