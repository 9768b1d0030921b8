#pragma once
// A blob seen as a cache root: its artifacts unpacked (exactly as `bundle unpack` writes them) into a
// private temporary directory that goes away with the object. Every command that works on a root
// (stats, guards, the portability check, the GUI's browser) works on a blob through it.
#include <filesystem>
#include <optional>
#include <string>

#include "bundle/blob.hpp"
#include "inductor/opened_root.hpp"
#include "util/result.hpp"
#include "util/temp_cleanup.hpp"
#include "util/unique_fd.hpp"

namespace kiln::bundle {

class TempRoot {
public:
    TempRoot() = default;
    // Owns `dir` from now on: removed with this object, or by the signal handler (TempCleanup) when
    // SIGTERM, SIGINT or SIGHUP ends the process first.
    explicit TempRoot(std::filesystem::path dir) : dir_(std::move(dir)), cleanup_(dir_) {}
    TempRoot(TempRoot&& o) noexcept : dir_(std::move(o.dir_)), cleanup_(std::move(o.cleanup_)) { o.dir_.clear(); }
    TempRoot& operator=(TempRoot&& o) noexcept;
    TempRoot(const TempRoot&) = delete;
    TempRoot& operator=(const TempRoot&) = delete;
    ~TempRoot();
    // <tmp>/kiln-blob-XXXXXX/inductor: the root to scan.
    std::filesystem::path root() const { return dir_ / "inductor"; }

private:
    std::filesystem::path dir_;
    TempCleanup cleanup_;
};

// Unpacks what torch would load from `blob` (unknown types are skipped). Errors: invalid keys, I/O.
Result<TempRoot> materialize_blob(const Blob& blob);

// A cache root as commands take one: a directory as it is, or a Mega-Cache blob unpacked into a
// temporary root that lives as long as this value (`label` says which, for reports). Made by
// frontend::open_cache, the one route every command and the GUI take.
struct RootOrBlob {
    std::filesystem::path root;
    std::optional<TempRoot> blob_root;
    std::string label;            // the path given, plus " (Mega-Cache blob, as load_cache_artifacts would write it)"
    std::filesystem::path named;  // the path given (or the default root): what lies beside it (trace/) is there
    UniqueFd root_fd;             // `root`, held open (O_DIRECTORY) since it was opened; -1 where none was opened
    bool is_blob() const { return blob_root.has_value(); }
    // What core functions take: `root` and its descriptor (valid while this value lives).
    inductor::OpenedRoot opened() const { return {root, root_fd.get()}; }
};

}  // namespace kiln::bundle
