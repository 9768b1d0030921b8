#pragma once
// The Mega-Cache artifacts a cache root holds, by the scanner's classification: what `bundle pack`
// can put into a blob and what `bundle diff` compares with one (torch 2.11's §3.3 packing rules).
#include <cstdint>
#include <string>
#include <vector>

#include "bundle/artifact_types.hpp"
#include "inductor/opened_root.hpp"
#include "pickle/buffer.hpp"
#include "util/result.hpp"

namespace kiln::bundle {

struct RootArtifact {
    ArtifactType type = ArtifactType::unknown;
    std::string key;       // the blob key: key dir name, "<xx>/<hex64>.best_config", PGO key, precompile id
    std::string path;      // absolute
    std::string rel_path;  // relative to the root
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::uint64_t ino = 0;  // st_ino at scan time: a reader checks it is still this file
};

struct RootArtifacts {
    std::string root;
    std::vector<RootArtifact> artifacts;  // sorted by type (blob order), key, path
    std::vector<std::string> skipped;     // files that look like artifacts but cannot go into a blob, with why
};

// Walks the opened root once (inductor::scan_cache, through its descriptor). Temporary and hidden
// files are never artifacts; an fxgraph/aotautograd dir whose name is not a valid key is listed in
// `skipped`.
Result<RootArtifacts> collect_root_artifacts(const inductor::OpenedRoot& root);
// The bytes of `a` read through `root_fd` (the descriptor it was collected through): its relative
// path opened beneath the root without following any symlink, and only if it still is the file the
// scan saw (inode and size), so a file swapped for a symlink or another file meanwhile is never
// read (Errc::busy). O_NOATIME where permitted.
Result<std::shared_ptr<const pickle::Buffer>> read_root_artifact(int root_fd, const RootArtifact& a,
                                                                 std::uint64_t max_bytes);

// The order types take in a blob Kiln writes: aot_autograd, inductor, autotune, pgo, precompile.
int blob_type_rank(ArtifactType t);

}  // namespace kiln::bundle
