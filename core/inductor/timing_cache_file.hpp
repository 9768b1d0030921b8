#pragma once
// Inductor's persistent autotune timing cache file (inductor-cache-format.md §7, codecache.py
// CacheBase): `<cache root>/cache/<system hash>` holding {"system": {..., "hash": h}, "cache": {op:
// {inputs_key: {precision: {choice: ms}}}}}, written by Python's json (Infinity for failed choices).
// The tuner writes it (tuning/timing_cache.hpp) and `timings` reads it (timings/timing_cache_source.hpp).
#include <cstdint>
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
// The same for a file's bytes already read (`path` names it in errors); empty text is an empty object.
Result<nlohmann::ordered_json> parse_cache_file(const std::string& text, const std::string& path);
// Adds to file["cache"] every timing (cache/op/inputs/precision/choice) of older["cache"] that it
// lacks: for a merge that met several versions of a file torch rewrites without a lock, so that a
// version written from an older read cannot take away what a newer one held. A node that is not an
// object on either side is left as it is.
void add_missing_timings(nlohmann::ordered_json& file, const nlohmann::ordered_json& older);
// The most read_cache_file reads of one file.
inline constexpr std::uint64_t kMaxCacheFileBytes = 1ull << 30;

}  // namespace kiln::inductor
