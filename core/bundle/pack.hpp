#pragma once
// `kiln-cli bundle pack`: a Mega-Cache blob torch's load_cache_artifacts accepts, built from a cache
// root: every graph entry, AOTAutograd entry and best config (or those selected by key or age),
// the Inductor graphs each selected AOTAutograd entry names (its closure), PGO profiles only when
// asked. One group per type, a fixed order: the same root gives the same bytes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bundle/root_artifacts.hpp"
#include "util/result.hpp"

namespace kiln::bundle {

// The fewest characters that name an artifact by a prefix of its key (`bundle pack --select`,
// `bundle show BLOB KEY`); shorter text names only a whole key.
inline constexpr std::size_t kMinKeyPrefix = 6;

struct PackOptions {
    std::vector<std::string> select;       // keys (a unique prefix of 6+ characters will do); empty: everything
    std::optional<std::int64_t> since_ns;  // only files modified at or after this time (ns since the epoch)
    bool include_pgo = false;              // PGO profiles (also packed when selected by key)
    bool include_precompile = true;        // precompile entries (torch 2.10+ loaders)
    std::uint64_t max_bytes = UINT64_MAX;
    // `--timings`: this machine's timing cache (cache/<system hash>) as an autotune artifact. Refused:
    // see timings_refusal().
    bool include_timings = false;
};

// Why `bundle pack --timings` packs nothing (issue 31, read in torch 2.11's sources): load_cache_
// artifacts does write an `autotune` artifact keyed "cache/<system hash>" byte for byte
// (AutotuneCacheArtifact.populate_cache: write_atomic(os.path.join(cache_dir(), key), content), no
// check of the key), but it replaces the file whole: it never merges, so the target machine's own
// timings for that system, newer ones included, would be lost. Errc::unsupported, with the way
// that merges (retune --publish / --fetch --write).
Error timings_refusal(const std::string& root);

struct PackedArtifact {
    ArtifactType type = ArtifactType::unknown;
    std::string key;
    std::string rel_path;
    std::uint64_t bytes = 0;
    std::string closure_of;  // the aot_autograd key that needed it, when it was added for closure
};

struct PackResult {
    std::string root;
    std::vector<PackedArtifact> artifacts;  // in blob order
    std::vector<std::string> notes;         // missing closure graphs, skipped files, left-out PGO profiles
    std::string blob;                       // the bytes to write
};

// Errors: a --select key that matches nothing or more than one key (Errc::invalid_argument),
// nothing to pack, an unreadable file, a blob over max_bytes.
// The scan and every read go through the opened root's descriptor.
Result<PackResult> pack_root(const inductor::OpenedRoot& root, const PackOptions& options);

// "2h", "30d" (ago, as evict's --older-than), or an ISO date "2026-11-26" / "2026-11-26T09:30[:00][Z]" (UTC).
Result<std::int64_t> parse_since(std::string_view text, std::int64_t now_ns);

}  // namespace kiln::bundle
