#pragma once
// Writing a Mega-Cache blob torch's load_cache_artifacts accepts: the exact frame of
// BytesWriter/_serialize_single_cache (see blob.hpp), one group per type, CRC-32 in front.
#include <string>
#include <string_view>
#include <vector>

#include "bundle/artifact_types.hpp"
#include "util/result.hpp"

namespace kiln::bundle {

struct OutArtifact {
    std::string key;
    std::string_view content;  // the caller keeps the bytes alive until build_blob returns
};
struct OutGroup {
    ArtifactType type = ArtifactType::unknown;
    std::vector<OutArtifact> artifacts;
};

// The blob's bytes, groups and artifacts in the order given. Errors: an unknown type, two groups of
// one type (torch would load only the last), a key that fails check_key, more than `max_bytes`.
Result<std::string> build_blob(const std::vector<OutGroup>& groups, std::uint64_t max_bytes = UINT64_MAX);

}  // namespace kiln::bundle
