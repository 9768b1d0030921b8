#include "util/merged_write.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <thread>

#include "util/atomic_file.hpp"
#include "util/regular_file.hpp"

namespace kiln {

namespace {

// A writer that rewrites the file faster than one merge and fsync take (a loop of torch-style writes)
// is waited out: every round merges what it wrote, nothing is renamed over a version not merged. Once
// an exchange replaced a newer version (held in memory only), the rounds go on until it is in the
// file again, for longer.
constexpr auto kMergeDeadline = std::chrono::minutes(2);
constexpr auto kRepairDeadline = std::chrono::minutes(10);
// After a repair, how long the file must stay unchanged: longer than another writer takes from its
// read to its rename (a torch-style writer: a few ms; 200 ms leaves room for a loaded machine).
constexpr auto kSettle = std::chrono::milliseconds(200);

bool same_time(const struct timespec& a, const struct timespec& b) {
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

// The same file with the same bytes as far as a stat tells: a rename changes the ctime of the file it
// moves, so `with_ctime` is false where that happened.
bool same_version(const struct stat& a, const struct stat& b, bool with_ctime) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size && same_time(a.st_mtim, b.st_mtim) &&
           (!with_ctime || same_time(a.st_ctim, b.st_ctim));
}

}  // namespace

Result<MergedWrite> MergedWrite::open(const std::filesystem::path& path, std::uint64_t max_bytes, bool make_dirs) {
    const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    if (make_dirs) {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) return io_error("create directory", dir.string(), ec.value());
    }
    // Not through a symlink at the folder either (cache/ planted as a link would take the file
    // elsewhere); a link higher up (the root itself) is the user's choice.
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        const int err = errno;
        struct stat st {};
        if ((err == ENOTDIR || err == ELOOP) && ::lstat(dir.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
            return make_error(Errc::invalid_argument, "the folder is a symbolic link; Kiln writes through none",
                              dir.string(), "replace the link with the folder it points to");
        return io_error("open directory", dir.string(), err);
    }
    return open_at(UniqueFd(dfd), path.filename().string(), path, max_bytes);
}

Result<MergedWrite> MergedWrite::open_at(UniqueFd dir, const std::string& name, const std::filesystem::path& path,
                                         std::uint64_t max_bytes) {
    MergedWrite w;
    w.dir_ = std::move(dir);
    w.path_ = path;
    w.name_ = name;
    w.max_bytes_ = max_bytes;
    KILN_TRY(w.text_, w.read_current(w.read_));
    return w;
}

Result<std::optional<std::string>> MergedWrite::read_current(Version& into) const {
    into = Version{};
    auto opened = open_regular_file_at(dir_.get(), name_.c_str(), path_.string());
    if (!opened) {
        if (opened.error().code == Errc::not_found) return std::optional<std::string>();
        return std::move(opened.error());
    }
    if (::fstat(opened->fd.get(), &into.st) != 0) return io_error("cannot stat", path_.string(), errno);
    KILN_TRY(std::string text, read_opened_file(*opened, path_.string(), max_bytes_));
    into.fd = std::move(opened->fd);
    return std::optional<std::string>(std::move(text));
}

Result<int> MergedWrite::replace(const Merge& merge) {
    const std::optional<std::string>* base = &text_;
    std::optional<std::string> newer;
    Version expected = std::move(read_);
    // Whether the name no longer holds the version `expected` describes.
    auto changed = [&] {
        struct stat st {};
        if (::fstatat(dir_.get(), name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return expected.fd.valid();
        return !expected.fd.valid() || !same_version(st, expected.st, true);
    };
    auto pause = std::chrono::microseconds(500);
    auto read_again = [&]() -> Status {
        // A writer is busy with the file: give it the CPU for a moment rather than merge again at once.
        std::this_thread::sleep_for(pause);
        pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(20));
        KILN_TRY(newer, read_current(expected));
        base = &newer;
        return ok_status();
    };
    const auto start = std::chrono::steady_clock::now();
    bool repairing = false;  // the file holds ours without the newer version `base` holds
    for (int round = 0;; ++round) {
        const auto spent = std::chrono::steady_clock::now() - start;
        if (spent >= (repairing ? kRepairDeadline : kMergeDeadline)) break;
        KILN_TRY(std::string content, merge(*base));
        if (changed()) {
            KILN_CHECK(read_again());
            continue;
        }
        KILN_TRY(PendingFile tmp, PendingFile::write(dir_.get(), content, path_.string()));
        if (changed()) {  // while the bytes were written and synced
            KILN_CHECK(read_again());
            continue;
        }
        if (!expected.fd.valid()) {
            int rc = ::renameat2(dir_.get(), tmp.name().c_str(), dir_.get(), name_.c_str(), RENAME_NOREPLACE);
            if (rc != 0 && (errno == EINVAL || errno == ENOSYS))
                rc = ::faccessat(dir_.get(), name_.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0
                         ? (errno = EEXIST, -1)
                         : ::renameat(dir_.get(), tmp.name().c_str(), dir_.get(), name_.c_str());
            if (rc == 0) {
                tmp.renamed();
                return round;
            }
            if (errno != EEXIST) return io_error("rename temporary file onto", path_.string(), errno);
            KILN_CHECK(read_again());  // a writer created it meanwhile
            continue;
        }
        // Ours is held open from here: its inode stays ours to compare against after the exchange.
        UniqueFd ours(::openat(dir_.get(), tmp.name().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
        if (!ours.valid()) return io_error("open temporary file for", path_.string(), errno);
        if (::renameat2(dir_.get(), tmp.name().c_str(), dir_.get(), name_.c_str(), RENAME_EXCHANGE) != 0) {
            if (errno != EINVAL && errno != ENOSYS)
                return io_error("rename temporary file onto", path_.string(), errno);
            // No exchange on this file system: the last look above is all there is.
            if (::renameat(dir_.get(), tmp.name().c_str(), dir_.get(), name_.c_str()) != 0)
                return io_error("rename temporary file onto", path_.string(), errno);
            tmp.renamed();
            return round;
        }
        // The temporary's name now holds the file that was replaced: the version merged, or a newer one.
        auto replaced = open_regular_file_at(dir_.get(), tmp.name().c_str(), path_.string());
        if (!replaced) {
            // Something else took the name (a folder, a link): put it back, ours is removed with `tmp`.
            ::renameat2(dir_.get(), tmp.name().c_str(), dir_.get(), name_.c_str(), RENAME_EXCHANGE);
            return make_error(Errc::busy, "the file was replaced by something else while Kiln wrote it; left as it is",
                              path_.string(), "run again");
        }
        struct stat st {};
        if (::fstat(replaced->fd.get(), &st) != 0) return io_error("cannot stat", path_.string(), errno);
        if (same_version(st, expected.st, false)) {
            if (!repairing) return round;  // `tmp` removes the old version
            // The version this repairs was in the file for a moment without the newer entries: a
            // writer that read it then renames later and would drop them (1 torch entry in 2,400 in
            // CI). Watch the file settle; a rename meanwhile is read and merged again.
            expected.fd = std::move(ours);
            if (::fstat(expected.fd.get(), &expected.st) != 0) return io_error("cannot stat", path_.string(), errno);
            const auto quiet_from = std::chrono::steady_clock::now();
            bool moved = false;
            while (!(moved = changed()) && std::chrono::steady_clock::now() - quiet_from < kSettle)
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            if (!moved) return round;
            KILN_CHECK(read_again());
            continue;
        }
        // Another writer renamed its file in after the last look: merge its bytes too.
        KILN_TRY(newer, read_opened_file(*replaced, path_.string(), max_bytes_));
        base = &newer;
        repairing = true;
        expected.fd = std::move(ours);
        if (::fstat(expected.fd.get(), &expected.st) != 0) return io_error("cannot stat", path_.string(), errno);
    }
    return make_error(Errc::busy, "the file kept changing under another writer for minutes; Kiln gave up",
                      path_.string(), "run again when the other writer (a torch process autotuning?) is done");
}

}  // namespace kiln
