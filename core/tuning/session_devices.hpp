#pragma once
// What a tuning session runs on: its devices (the requested ones, else the spec's, else the CPU for
// C++ and every GPU for CUDA; each checked against the kernel's language) and the timing-cache
// system they share (one GPU model per session).
#include <filesystem>
#include <vector>

#include "inductor/timing_cache_file.hpp"
#include "tuning/spec.hpp"
#include "worker/devices.hpp"

namespace kiln::tuning {

Result<std::vector<worker::Device>> session_devices(const TuningSpec& spec, std::vector<worker::Device> requested);
Result<inductor::SystemInfo> session_system(const TuningSpec& spec, const std::vector<worker::Device>& devices,
                                            const std::filesystem::path& cache_root);

}  // namespace kiln::tuning
