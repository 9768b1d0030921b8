#pragma once
// An exclusive advisory lock on <root>/locks/<key>.lock (flock), taken with a timeout. The kernel
// releases it when the holder dies, so a killed process never leaves a stale lock behind.
#include <chrono>
#include <filesystem>

#include "util/result.hpp"

namespace kiln::codecache {

class FileLock {
public:
    static Result<FileLock> acquire(const std::filesystem::path& path, std::chrono::milliseconds timeout);
    FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    FileLock& operator=(FileLock&& other) noexcept;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    ~FileLock();

private:
    explicit FileLock(int fd) : fd_(fd) {}
    int fd_ = -1;
};

}  // namespace kiln::codecache
