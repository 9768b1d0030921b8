#pragma once
// Helpers shared by the scanner and eviction tests: copies of fixtures, file times, a child
// process that runs code without root's permission bypass.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "inductor/scanner.hpp"

namespace kiln::test {

inline void copy_tree(const std::filesystem::path& from, const std::filesystem::path& to) {
    std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

// Sets atime and mtime of `p` (not following symlinks) to `ns` since the epoch.
inline void set_times(const std::filesystem::path& p, std::int64_t ns) {
    struct timespec ts[2];
    ts[0].tv_sec = ts[1].tv_sec = static_cast<time_t>(ns / 1000000000LL);
    ts[0].tv_nsec = ts[1].tv_nsec = static_cast<long>(ns % 1000000000LL);
    ::utimensat(AT_FDCWD, p.c_str(), ts, AT_SYMLINK_NOFOLLOW);
}

// Sets the times of every file below `dir` (and `dir` itself).
inline void set_tree_times(const std::filesystem::path& dir, std::int64_t ns) {
    for (auto& e : std::filesystem::recursive_directory_iterator(dir)) set_times(e.path(), ns);
    set_times(dir, ns);
}

inline std::int64_t now_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}
constexpr std::int64_t kDayNs = 86400LL * 1000000000LL;

inline std::uint64_t count(const inductor::ScanResult& r, inductor::Category c) {
    std::uint64_t n = 0;
    for (auto& a : r.artifacts) n += a.category == c;
    return n;
}

// Runs `fn` in a child process; when the test runs as root the child first becomes `nobody`,
// so permission bits apply to it. Returns the child's exit status (fn's return value, 0..255).
inline int run_unprivileged(const std::function<int()>& fn) {
    pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(250);
        _exit(fn() & 0xff);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 255;
}

}  // namespace kiln::test
