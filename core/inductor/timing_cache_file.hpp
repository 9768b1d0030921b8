#pragma once
// Inductor's persistent autotune timing cache file (inductor-cache-format.md §7, codecache.py
// CacheBase): `<cache root>/cache/<system hash>` holding {"system": {..., "hash": h}, "cache": {op:
// {inputs_key: {precision: {choice: ms}}}}}, written by Python's json (Infinity for failed choices).
// The tuner writes it (tuning/timing_cache.hpp) and `timings` reads it (timings/timing_cache_source.hpp).
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "util/result.hpp"

namespace kiln::inductor {

// sha256 hex of py_dumps(system, sort_keys=True): Inductor's CacheBase.get_system() hash rule.
std::string system_hash(const nlohmann::ordered_json& system_without_hash);

// Inductor's get_system(): {"device": {"name"}, "version": {"cuda", "triton"}, "hash"}, or {"hash"}
// alone where CUDA is absent (the CPU).
struct SystemInfo {
    nlohmann::ordered_json system;  // including "hash"
    std::string hash;
};

SystemInfo make_system(const nlohmann::ordered_json& without_hash);
SystemInfo cpu_system();
// A CUDA device's system. Kiln cannot compute Triton's key, so when `cache_root/cache/` already
// holds a file Inductor wrote for the same device name and CUDA version, its system (and hash) is
// adopted: Kiln and Inductor then share one file. Otherwise "triton" is null.
SystemInfo cuda_system(const std::filesystem::path& cache_root, const std::string& device_name,
                       const std::string& cuda_version);

// Reads a cache file: {"system", "cache"}; a missing file is an empty object; Python's Infinity
// is read as +inf.
Result<nlohmann::ordered_json> read_cache_file(const std::filesystem::path& path);

}  // namespace kiln::inductor
