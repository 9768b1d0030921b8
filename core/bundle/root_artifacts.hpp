#pragma once
// The Mega-Cache artifacts a cache root holds, by the scanner's classification: what `bundle pack`
// can put into a blob and what `bundle diff` compares with one (torch 2.11's §3.3 packing rules).
#include <cstdint>
#include <string>
#include <vector>

#include "bundle/artifact_types.hpp"
#include "util/result.hpp"

namespace kiln::bundle {

struct RootArtifact {
    ArtifactType type = ArtifactType::unknown;
    std::string key;       // the blob key: key dir name, "<xx>/<hex64>.best_config", PGO key, precompile id
    std::string path;      // absolute
    std::string rel_path;  // relative to the root
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
};

struct RootArtifacts {
    std::string root;
    std::vector<RootArtifact> artifacts;  // sorted by type (blob order), key, path
    std::vector<std::string> skipped;     // files that look like artifacts but cannot go into a blob, with why
};

// Walks `root` once (inductor::scan_cache). Temporary and hidden files are never artifacts; an
// fxgraph/aotautograd dir whose name is not a valid key is listed in `skipped`.
Result<RootArtifacts> collect_root_artifacts(const std::string& root);

// The order types take in a blob Kiln writes: aot_autograd, inductor, autotune, pgo, precompile.
int blob_type_rank(ArtifactType t);

}  // namespace kiln::bundle
