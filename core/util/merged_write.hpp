#pragma once
// A read-merge-replace of a file that another program rewrites whole without any lock: torch's
// timing cache (cache/<system hash>), which PersistentCache.lookup reads, adds its op to and puts
// back with write_atomic (a temporary renamed over the file). torch 2.11 takes no lock for it (its
// locks/ folder holds per-key compile locks only), so there is none to share; Kiln's writers still
// serialise among themselves under their own lock. What closes the race with torch is here:
// - just before the rename the file is looked at again (device, inode, size, mtime, ctime against
//   what was read; the descriptor read from stays open, so the inode cannot be reused) and, when it
//   changed, read again and merged again;
// - the rename itself exchanges the files (renameat2 RENAME_EXCHANGE) so that the file it replaced
//   can be checked: when a writer renamed its file in after the last look, that file is merged too
//   and written again, instead of being lost; the repaired file must then stay unchanged for a
//   moment (a writer that read the version without that file's entries renames within it, and is
//   merged too). An absent file is created with RENAME_NOREPLACE.
// A file system without either flag gets a plain rename after the last look.
// What remains is torch's own race: a torch process that read before Kiln's rename and renames after
// it drops Kiln's entries (as it drops another torch process's); Kiln cannot prevent that.
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace kiln {

class MergedWrite {
public:
    // The file's new bytes from its current ones (nullopt: there is no file).
    using Merge = std::function<Result<std::string>(const std::optional<std::string>& current)>;

    // Opens the file's folder (created with `make_dirs`; a symlink there is refused) and reads the
    // file: a regular file of at most `max_bytes`, never through a symlink (refused), or none.
    static Result<MergedWrite> open(const std::filesystem::path& path, std::uint64_t max_bytes, bool make_dirs = true);
    // The same for the file `name` (no '/') in the folder `dir`, which the caller reached without
    // following symlinks (beneath an opened cache root); `path` names the file in errors and path().
    static Result<MergedWrite> open_at(UniqueFd dir, const std::string& name, const std::filesystem::path& path,
                                       std::uint64_t max_bytes);

    const std::optional<std::string>& text() const { return text_; }
    const std::filesystem::path& path() const { return path_; }

    // Replaces the file with merge(its current bytes). The first call of `merge` gets text() itself
    // (the same object: a caller may reuse what it parsed of it); a later one gets a newer version
    // another writer put there meanwhile. An error of `merge` is returned and nothing is written.
    // Returns how many newer versions were merged (0 in the usual case).
    Result<int> replace(const Merge& merge);

private:
    struct Version {
        UniqueFd fd;  // held open: its inode cannot be reused while we compare against it
        struct stat st {};
    };
    MergedWrite() = default;
    // The file as it is now (nullopt text and no fd when there is none).
    Result<std::optional<std::string>> read_current(Version& into) const;

    std::filesystem::path path_;
    std::string name_;
    UniqueFd dir_;
    std::uint64_t max_bytes_ = 0;
    std::optional<std::string> text_;
    Version read_;
};

}  // namespace kiln
