#pragma once
// `kiln-cli bundle diff A B`: which Mega-Cache artifacts two blobs, or a blob and a cache root (or two
// roots), hold, and for a key both hold whether the bytes are the same. A blob counts with what torch
// would load from it (shadowed groups and superseded copies left out); a root with what `bundle pack`
// would take from it (PGO profiles included). An Inductor or AOTAutograd key may hold several entries
// (guard sets): entries are compared by their content's hash, whatever the files are called.
#include <cstdint>
#include <string>
#include <vector>

#include "bundle/artifact_types.hpp"
#include "util/result.hpp"

namespace kiln::bundle {

struct SideEntry {
    std::string hash;  // sha256_hash of the bytes (the file name torch gives graph entries)
    std::uint64_t bytes = 0;
};

enum class DiffStatus : std::uint8_t { only_a, only_b, differ, same };
std::string_view diff_status_name(DiffStatus s);

struct KeyDiff {
    ArtifactType type = ArtifactType::unknown;
    std::string key;  // PGO keys as torch names the file (':' and the like as '_')
    DiffStatus status = DiffStatus::same;
    std::vector<SideEntry> a, b;  // the key's entries on each side, sorted by hash
};

struct BundleDiff {
    std::string a_label, b_label;  // "blob PATH" / "cache PATH"
    std::vector<KeyDiff> keys;     // blob order of types, then key
    std::size_t count(DiffStatus s) const;
};

// A and B: each a blob file or a cache directory. Errors: unreadable or corrupt blobs, missing paths.
Result<BundleDiff> diff_bundles(const std::string& a, const std::string& b);

}  // namespace kiln::bundle
