#pragma once
// Small file helpers for the autotuner: an exclusive flock held for a scope, and atomic writes
// (temporary file in the same folder, then rename) like Inductor's write_atomic.
#include <chrono>
#include <filesystem>
#include <string_view>

#include "util/result.hpp"

namespace kiln::autotune {

class FileLock {
public:
    // Blocks up to `timeout` for an exclusive flock on `path` (created with its folders).
    static Result<FileLock> acquire(const std::filesystem::path& path,
                                    std::chrono::milliseconds timeout = std::chrono::minutes(2));
    FileLock(FileLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    FileLock& operator=(FileLock&&) = delete;
    FileLock(const FileLock&) = delete;
    ~FileLock();

private:
    explicit FileLock(int fd) : fd_(fd) {}
    int fd_ = -1;
};

Status write_atomic(const std::filesystem::path& path, std::string_view content);

}  // namespace kiln::autotune
