#pragma once
// Inductor's local max-autotune cache, `<root>/cache/<system hash>` (one file a device/system):
// {"system": {"device": {"name"}, "version": {...}, "hash"},
//  "cache": {op: {inputs_key: {precision: {choice: ms}}}, "base mm time: ...": float, ...}}
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "inductor/opened_root.hpp"
#include "timings/py_literal.hpp"
#include "timings/timing_model.hpp"
#include "util/result.hpp"

#include <nlohmann/json.hpp>

namespace kiln::timings {

struct TimingCacheFile {
    std::string device;       // system.device.name
    std::string system_hash;  // system.hash (also the file name)
    std::vector<Op> ops;
};

// `root` is the Inductor cache root used to find each triton choice's kernel module and join its
// parameters; pass an empty path to skip that.
Result<TimingCacheFile> read_timing_cache(const std::filesystem::path& path, const std::filesystem::path& root);
// The same, from text already in memory (`origin` names it in errors).
Result<TimingCacheFile> parse_timing_cache(const std::string& text, const std::string& origin,
                                           const std::filesystem::path& root);
// The kernel modules named by the timing caches of one read of a root, each looked up and read once
// however many of its files name it (a cache's files name the same modules: a million-file cache's 938
// files re-read them for 1.4 CPU-s). By the Inductor root's place beneath the opened root and the key.
struct KernelModuleMemo {
    struct Module {
        Shared<std::string> path;  // "" when the key names no module there
        Params params;             // null when none was read; shared with every choice that names it
    };
    std::map<std::string, Module> by_key;  // "<prefix>\0<key>"
};
// `rel` beneath an opened root, the file and the kernel modules it names read through its descriptor
// (`memo`: across the files of one read; not shared between threads).
Result<TimingCacheFile> read_timing_cache(const inductor::OpenedRoot& root, std::string_view rel,
                                          KernelModuleMemo* memo = nullptr);

// "<64 hex>" inside a folder named "cache".
bool looks_like_timing_cache_path(const std::filesystem::path& path);
// Human form of an inputs key: "512x512 float16, 512x512 float16"; fills `sizes`.
std::string describe_inputs(const std::vector<TensorKey>& keys, std::vector<std::string>* sizes,
                            std::vector<std::string>* strides = nullptr);

}  // namespace kiln::timings
