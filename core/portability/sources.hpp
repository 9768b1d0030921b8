#pragma once
// Where a fingerprint comes from: this machine (the CUDA driver and toolkit, and, when a Python
// with torch is given, torch itself in a child process), or what another machine left behind (a
// TORCH_TRACE directory, a cache root, one graph entry, a fingerprint file).
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "portability/fingerprint.hpp"
#include "util/result.hpp"

namespace kiln::portability {

// This machine without Python: device names, compute capability, SM count and warp size from the
// CUDA driver (dlopen), the toolkit's nvcc version, and what the environment decides by itself
// ($CXX for inductor_config[cpp.cxx], $TORCH_COMPILE_CACHE_KEY_TAG); everything else unknown.
Fingerprint local_fingerprint();

// The Python script `kiln-cli env --python` runs (it prints one JSON object; exit 3 without torch).
std::string probe_script();

struct ProbeOptions {
    std::string python = "python3";
    std::chrono::milliseconds timeout{std::chrono::seconds(300)};
};
// Runs the probe with `python` (and once more with torch's environment variables removed, to tell
// which inductor_config values the environment sets). Errc::not_found when that Python cannot
// import torch (the message says why), Errc::timeout, Errc::external when it fails otherwise.
Result<Fingerprint> python_fingerprint(const ProbeOptions& options);

// The probe's output (and the baseline run's, when there was one) as a fingerprint. Exposed for
// tests on captured output.
Result<Fingerprint> fingerprint_from_probe(const nlohmann::json& probe, const nlohmann::json* baseline,
                                           const std::string& origin);

// Reads a fingerprint from what the path is: a `kiln-cli env --json` file, the probe's raw
// output, a TORCH_TRACE log or directory, an Inductor cache root, or one graph entry.
// Errc::unsupported for a Mega-Cache blob (not read yet), Errc::parse / not_found for the rest.
Result<Fingerprint> load_fingerprint(const std::filesystem::path& path);

// This machine: with `python` given, torch's values (errors when it cannot import torch); without,
// `python3` when it imports torch, else the driver's values with a note saying why. Driver and
// toolkit facts are added either way.
Result<Fingerprint> this_machine_fingerprint(const std::optional<std::string>& python);

Result<Fingerprint> fingerprint_from_trace(const std::filesystem::path& log_or_dir);
Result<Fingerprint> fingerprint_from_entry(const std::filesystem::path& entry);
// The environment of the newest graph entry; the other environments found are named in `notes`.
Result<Fingerprint> fingerprint_from_root(const std::filesystem::path& root);

}  // namespace kiln::portability
