#pragma once
// Which devices a tuning session uses: the configured list ("0,1" or "cpu"), else the ids in
// CUDA_VISIBLE_DEVICES, else every GPU the driver reports, else the CPU.
#include <optional>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace kiln::worker {

struct Device {
    std::optional<int> cuda;  // none: the CPU
    bool is_cpu() const { return !cuda.has_value(); }
    std::string label() const { return cuda ? "cuda:" + std::to_string(*cuda) : "cpu"; }
};

Result<std::vector<Device>> parse_devices(const std::string& list);  // "cpu", "0,1", "cuda:0,cuda:1"
std::vector<Device> default_devices();
// How many GPUs the NVIDIA driver lists (one folder each under `dir`), read without cuInit (which
// costs a process a good part of a second on a multi-GPU host): a guess of what cuDeviceGetCount
// will say, to start workers early. None when CUDA_VISIBLE_DEVICES is set (then it is not the
// count) or the folder is missing or empty.
std::optional<int> driver_gpu_count(const std::string& dir = "/proc/driver/nvidia/gpus");
std::string devices_label(const std::vector<Device>& devices);  // "cuda:0,cuda:1"

}  // namespace kiln::worker
