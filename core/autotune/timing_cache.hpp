#pragma once
// The persistent autotune timing cache in Inductor's own format (inductor-cache-format.md §7,
// codecache.py CacheBase/LocalCache/PersistentCache): `<cache root>/cache/<system hash>` holding
// {"system": {..., "hash": h}, "cache": {op: {inputs_key: {precision: {choice: ms}}}}}, plus an
// optional read-only global directory `<global dir>/<system hash>`. Unlike Inductor, an update is a
// read-merge-write under an exclusive flock, so concurrent tuners never lose each other's entries.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "util/result.hpp"

namespace kiln::autotune {

// Inductor's get_system(): {"device": {"name"}, "version": {"cuda", "triton"}, "hash"}, or {"hash"}
// alone where CUDA is absent (the CPU).
struct SystemInfo {
    nlohmann::ordered_json system;  // including "hash"
    std::string hash;
};

// sha256 hex of py_dumps(system, sort_keys=True): Inductor's CacheBase.get_system() hash rule.
std::string system_hash(const nlohmann::ordered_json& system_without_hash);
SystemInfo make_system(const nlohmann::ordered_json& without_hash);
SystemInfo cpu_system();
// A CUDA device's system. Kiln cannot compute Triton's key, so when `cache_root/cache/` already
// holds a file Inductor wrote for the same device name and CUDA version, its system (and hash) is
// adopted: Kiln and Inductor then share one file. Otherwise "triton" is null.
SystemInfo cuda_system(const std::filesystem::path& cache_root, const std::string& device_name,
                       const std::string& cuda_version);

using ChoiceTimings = std::map<std::string, double>;  // choice -> ms (+inf for a failed choice)

struct TimingKey {
    std::string op;
    std::string inputs_key;
    std::string precision = "highest";
};

class TimingCache {
public:
    TimingCache(std::filesystem::path cache_root, SystemInfo system,
                std::optional<std::filesystem::path> global_dir = std::nullopt);

    std::filesystem::path local_path() const;  // <root>/cache/<hash>
    std::optional<std::filesystem::path> global_path() const;
    std::filesystem::path lock_path() const;   // <root>/locks/autotune-<hash>.lock
    const SystemInfo& system() const { return system_; }

    // Every timing recorded for `key`, global first, then local (local wins).
    Result<ChoiceTimings> lookup(const TimingKey& key) const;

    // Merges `timings` into the local file under the exclusive lock; other entries are kept.
    Status update(const TimingKey& key, const ChoiceTimings& timings) const;

    // The whole "cache" object of the local file ({} when absent).
    Result<nlohmann::ordered_json> read_local() const;

private:
    std::filesystem::path root_;
    SystemInfo system_;
    std::optional<std::filesystem::path> global_dir_;
};

// Reads a cache file: {"system", "cache"}; a missing file is an empty object.
Result<nlohmann::ordered_json> read_cache_file(const std::filesystem::path& path);

}  // namespace kiln::autotune
