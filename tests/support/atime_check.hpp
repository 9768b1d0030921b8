#pragma once
// Checking that a read leaves atimes alone (what LRU eviction goes by): every atime of a tree set to
// one old date, then the files whose atime moved. The date is older than every mtime, so relatime
// updates it on a plain read; `plain_read_moves_atime` is the control that says this file system does.
#include <fcntl.h>
#include <sys/stat.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace kiln::test {

inline constexpr time_t kOldAtimeForChecks = 1577836800;  // 2020-01-01

// Sets the atime of `root` and everything below it (mtimes kept). False when one could not be set.
inline bool set_old_atimes(const std::filesystem::path& root) {
    bool ok = true;
    auto set = [&](const std::filesystem::path& p) {
        struct timespec ts[2] = {{kOldAtimeForChecks, 0}, {0, UTIME_OMIT}};
        ok &= ::utimensat(AT_FDCWD, p.c_str(), ts, AT_SYMLINK_NOFOLLOW) == 0;
    };
    set(root);
    if (std::filesystem::is_directory(root))
        for (const auto& e : std::filesystem::recursive_directory_iterator(root)) set(e.path());
    return ok;
}

// The regular files below `root` (or `root` itself) whose atime is no longer the old date, relative
// to `root`, with their atime.
inline std::map<std::string, time_t> moved_atimes(const std::filesystem::path& root) {
    std::map<std::string, time_t> out;
    auto check = [&](const std::filesystem::path& p) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
        if (st.st_atim.tv_sec != kOldAtimeForChecks)
            out[p == root ? p.filename().string() : std::filesystem::relative(p, root).string()] = st.st_atim.tv_sec;
    };
    check(root);
    if (std::filesystem::is_directory(root))
        for (const auto& e : std::filesystem::recursive_directory_iterator(root)) check(e.path());
    return out;
}

// The control: a plain read of `file` (whose atime was set old) moves its atime here. Sets it old again.
inline bool plain_read_moves_atime(const std::filesystem::path& file) {
    { std::ifstream(file).get(); }
    struct stat st {};
    bool moved = ::stat(file.c_str(), &st) == 0 && st.st_atim.tv_sec != kOldAtimeForChecks;
    set_old_atimes(file);
    return moved;
}

}  // namespace kiln::test
