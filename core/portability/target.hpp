#pragma once
// The target machine as every front end names it (`--target` of `kiln-cli portable`, `check` and
// `evict`, the GUI's Portability view): a path or this machine; and "will this cache hit there?" over
// a cache as frontend::open_cache opened it (a blob judged as load_cache_artifacts would unpack it).
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

// What `--target TEXT` names: `local` is this machine (asking `python` when given), anything else a path.
TargetSpec target_spec(const std::string& text, std::optional<std::string> python = std::nullopt);
// this_machine_fingerprint(python) or load_fingerprint(path).
Result<Fingerprint> load_target(const TargetSpec& target);

// The opened cache assessed; a blob's report names the blob, never the temporary root it was
// unpacked into. `root` must outlive the call.
Result<PortableReport> assess_opened(const bundle::RootOrBlob& root, const Fingerprint& target,
                                     const PortableOptions& options = {});

}  // namespace kiln::portability
