#pragma once
// "Will this cache hit there?" as both front ends ask it (`kiln-cli portable` and the GUI's
// Portability view): the target named by a path or as this machine, the cache given as a root
// directory or a Mega-Cache blob (judged as the cache load_cache_artifacts would make of it).
#include <filesystem>
#include <optional>
#include <string>

#include "bundle/temp_root.hpp"
#include "portability/portable.hpp"

namespace kiln::portability {

struct TargetSpec {
    bool this_machine = false;          // `--target local`
    std::filesystem::path path;         // else: what load_fingerprint reads
    std::optional<std::string> python;  // with this_machine: the Python with torch to ask
};

// this_machine_fingerprint(python) or load_fingerprint(path).
Result<Fingerprint> load_target(const TargetSpec& target);

// The root resolved (inductor::resolve_root) and assessed; a blob's report names the blob, never
// the temporary root it was unpacked into. `root` must outlive the call.
Result<PortableReport> assess_opened(const bundle::RootOrBlob& root, const Fingerprint& target,
                                     const PortableOptions& options = {});

}  // namespace kiln::portability
