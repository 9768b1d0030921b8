#pragma once
// Per-kernel timing files of an Inductor cache and the kernel modules they belong to:
// `<2>/<64 hex>.best_config` (the config coordinate descent or autotuning settled on),
// `<2>/c<51>.kernel_perf` (one float: the kernel's benchmarked ms), and `<2>/c<51>.py`
// modules whose decorator holds the launch parameters (BLOCK sizes, warps, stages).
#include <filesystem>
#include <string>
#include <string_view>

#include "inductor/opened_root.hpp"

#include "timings/timing_model.hpp"
#include "util/result.hpp"

namespace kiln::timings {

struct KernelModuleInfo {
    std::string path;
    std::string kernel_name;  // the `def` under @triton.jit, or inductor_meta's kernel_name
    std::string heuristic;    // "template", "pointwise", "reduction", "persistent_reduction"...
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
};

// Reads the launch parameters of a Triton kernel module without executing it.
Result<KernelModuleInfo> read_kernel_module_info(const std::filesystem::path& module);
// The same from the module's text (the fuzzer, and files already read).
Result<KernelModuleInfo> parse_kernel_module_info(const std::string& text, const std::string& path);

// `<root>/<key[1:3]>/<key>.py` for a "c<51>" key, or "" if no such file.
std::string kernel_module_for_key(const std::filesystem::path& root, const std::string& key);
// The kernel module a per-kernel file belongs to: same stem, else the only module in its folder.
std::string sibling_kernel_module(const std::filesystem::path& file);

// One op ("best_config") with one choice: the config, its parameters, no time (time_taken_ms
// is how long finding it took, kept as a parameter).
Result<Op> read_best_config(const std::filesystem::path& path);
// One op ("kernel_perf") with one choice: the module key and its time.
Result<Op> read_kernel_perf(const std::filesystem::path& path);

// The same beneath an opened root (`rel` relative to it), the file and its kernel module read
// through the root's descriptor; paths in the result name path_beneath(root, rel).
Result<Op> read_best_config(const inductor::OpenedRoot& root, std::string_view rel);
Result<Op> read_kernel_perf(const inductor::OpenedRoot& root, std::string_view rel);
// `<prefix>/<xx>/<key>.py` beneath the opened root for a "c<51>" key (`prefix`: the Inductor root
// relative to it, "" for itself), relative to it; "" if no such file.
std::string kernel_module_rel_for_key(const inductor::OpenedRoot& root, const std::string& key,
                                      const std::string& prefix = {});
// The module `rel` beneath the opened root (info.path: path_beneath(root, rel)).
Result<KernelModuleInfo> read_kernel_module_info(const inductor::OpenedRoot& root, std::string_view rel);

}  // namespace kiln::timings
