#pragma once
// The environment-bound facts in a cache's non-graph files: the system block of an autotune timing
// cache (`cache/<system hash>`), the target of a compiled Triton kernel (`triton/<dev>/<HASH>/<name>.json`),
// the name of a `.best_config` (derived from torch_key and the cache key tag) and the device
// properties a kernel module was generated for.
#include <fcntl.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "portability/fingerprint.hpp"
#include "util/result.hpp"

namespace kiln::portability {

struct TimingCacheSystem {
    std::string rel_path;       // "cache/2b00ebb9…"
    std::string device_name;    // "" when the system block has none (no GPU)
    std::string device_value;   // system_info[device] as a debug line prints it
    std::string version_value;  // system_info[version]
    std::string hash;           // system_info[hash] (hex)
    bool has_device = false;

    // system_info[device] / [version] / [hash] as components (values only: no pickle protocol here).
    Fingerprint as_components(const std::string& source) const;
};

// Reads the "system" block at the start of a timing cache (the rest, the timings, is not parsed).
// Relative paths in these readers are relative to `dirfd` (an open directory: a root walked once).
Result<TimingCacheSystem> read_timing_system(const std::filesystem::path& file, std::string rel_path,
                                             int dirfd = AT_FDCWD);
// Every readable `cache/<hex64>` under a root, in name order.
std::vector<TimingCacheSystem> read_timing_systems(const std::filesystem::path& root);

struct TritonTarget {
    std::string kernel;          // "triton_mm"
    std::string backend;         // "cuda", "hip"
    std::string arch;            // "90", "gfx942"
    std::string warp_size;       // "32"
    std::string triton_version;  // "3.6.0"
    std::string ptx_version;     // "" when null (Triton's default for the ptxas in use)
    std::string python_abi;      // launcher dirs (no kernel json, a `cuda_utils.cpython-312-….so`): "cpython-312"
};
// The `<name>.json` metadata of one Triton kernel dir (the first one that is not `__grp__*.json`),
// or for a dir holding only Triton's compiled launcher module, the Python ABI it was built for.
// `files`: the dir's file names when the caller knows them (a scan), else the dir is listed.
Result<TritonTarget> read_triton_target(const std::filesystem::path& kernel_dir,
                                        const std::vector<std::string>& files = {}, int dirfd = AT_FDCWD);
// The arch every Triton kernel dir under `root`/triton/<dev>/ agrees on, with the first dir read
// (relative path); nullopt when there are none or they disagree.
std::optional<std::pair<std::string, std::string>> common_triton_arch(const std::filesystem::path& root);

// `.best_config` file name (without the extension) torch derives for a kernel module:
// sha256(sha256(f"{basename}:{cache_key_tag}").hexdigest().encode() + torch_key).hexdigest().
std::string best_config_name(std::string_view module_basename, const std::string& cache_key_tag,
                             const std::string& torch_key_hex);

// The `DeviceProperties(...)` and `backend_hash` a Triton kernel module was generated for
// (read from its first 16 KB); empty fields when absent.
struct KernelModuleTarget {
    std::string cc, multi_processor_count, warp_size, backend_hash;
};
KernelModuleTarget read_kernel_module_target(const std::filesystem::path& module, int dirfd = AT_FDCWD);

// The first `DeviceProperties(type='(\w+)', index=\d+, multi_processor_count=(\d+), cc=(\d+),[^)]*warp_size=(\d+)\)`
// in a kernel module's or output code's text, scanned by hand (the text is a cache's or a trace's).
struct DevicePropertiesText {
    std::string type, multi_processor_count, cc, warp_size;
};
std::optional<DevicePropertiesText> find_device_properties(std::string_view text);
// The first `'backend_hash': '([0-9A-Fa-f]+)'` (of exactly `digits` hex digits when that is not 0), or "".
std::string find_backend_hash(std::string_view text, std::size_t digits = 0);

// "cpython-312" for Python "3.12.3", or empty.
std::string python_abi_of(const std::string& python_version);

// The short version in a Triton key ("3.6.0" of "3.6.00355c3e…-c8b8…"), or empty.
std::string triton_version_of_key(const std::string& key);

}  // namespace kiln::portability
