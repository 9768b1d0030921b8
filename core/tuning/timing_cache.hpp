#pragma once
// The tuner's persistent timing cache, in Inductor's own file format (inductor/timing_cache_file.hpp):
// `<cache root>/cache/<system hash>` plus an optional read-only global directory
// `<global dir>/<system hash>` (codecache.py LocalCache/PersistentCache). Unlike Inductor, an update
// is a read-merge-write under an exclusive flock, so concurrent tuners never lose each other's entries.
// Choice keys are `<op>-<code hash>` (the code cache key of the rendered source): a timing is found
// again exactly when the compiled code is the same. A CUDA device adopts an Inductor-written system
// block of the same GPU name and CUDA version (Kiln cannot compute Triton's key), so both tools share
// one file. A file that does not parse is left byte for byte; the timings go to
// `<root>/kiln/autotune/unsaved-<hash>.json`, named in the error.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "inductor/timing_cache_file.hpp"
#include "util/result.hpp"

namespace kiln::tuning {

using ChoiceTimings = std::map<std::string, double>;  // choice -> ms (+inf for a failed choice)

struct TimingKey {
    std::string op;
    std::string inputs_key;
    std::string precision = "highest";
};

class TimingCache {
public:
    TimingCache(std::filesystem::path cache_root, inductor::SystemInfo system,
                std::optional<std::filesystem::path> global_dir = std::nullopt);

    std::filesystem::path local_path() const;  // <root>/cache/<hash>
    std::optional<std::filesystem::path> global_path() const;
    std::filesystem::path lock_path() const;  // <root>/locks/autotune-<hash>.lock
    const inductor::SystemInfo& system() const { return system_; }

    // Every timing recorded for `key`, global first, then local (local wins).
    Result<ChoiceTimings> lookup(const TimingKey& key) const;

    // Merges `timings` into the local file under the exclusive lock; other entries keep their values
    // (NaN and Infinity included). When the file does not parse, or a node on the timings' path is
    // not an object, the file is left untouched, the timings are written to unsaved_path() instead
    // and the error names both files.
    Status update(const TimingKey& key, const ChoiceTimings& timings) const;
    std::filesystem::path unsaved_path() const;  // <root>/kiln/autotune/unsaved-<hash>.json

    // The whole "cache" object of the local file ({} when absent).
    Result<nlohmann::ordered_json> read_local() const;

private:
    Status rescue(const TimingKey& key, const ChoiceTimings& timings, const Error& why) const;

    std::filesystem::path root_;
    inductor::SystemInfo system_;
    std::optional<std::filesystem::path> global_dir_;
};

}  // namespace kiln::tuning
