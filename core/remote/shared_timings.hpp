#pragma once
// Sharing autotune timings between machines through Redis, under Kiln's own keys:
//   kiln:timings:v1:<system hash>:<op>:<sha256(inputs_key \n precision)[:16]>
// each holding {"system", "op", "inputs_key", "precision", "timings": {choice: [record, ...]}},
// a record being {"ms", "host", "device", "published"} (ms: Infinity for a failed choice, as
// Inductor writes it). The first record of a choice is the shared value every machine reads; a
// different later value is appended beside it with its host, never silently overwriting it.
// Updates are read-merge-write under WATCH/MULTI/EXEC, so concurrent publishers lose nothing.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "remote/redis_client.hpp"
#include "timings/timing_model.hpp"
#include "tuning/timing_cache.hpp"

namespace kiln::remote {

inline constexpr std::string_view kSharedTimingsPrefix = "kiln:timings:v1:";

struct TimingRecord {
    double ms = 0;  // +inf: the choice failed
    std::string host;
    std::string device;
    std::int64_t published = 0;  // Unix seconds
};

struct SharedTimings {
    std::string redis_key;
    nlohmann::ordered_json system;  // Inductor's system block, "hash" included
    std::string system_hash;
    tuning::TimingKey key;
    std::map<std::string, std::vector<TimingRecord>> choices;  // first record = the shared value
};

struct PublishReport {
    int added = 0;        // choices the server did not have
    int same = 0;         // already there with the same time
    int conflicting = 0;  // there with another time: kept both
};

std::string shared_timings_key(std::string_view system_hash, const tuning::TimingKey& key);

Result<PublishReport> publish_timings(RedisClient& client, const nlohmann::ordered_json& system,
                                      const tuning::TimingKey& key, const tuning::ChoiceTimings& timings,
                                      const std::string& host);
// Every shared entry (SCAN kiln:timings:v1:*); undecodable values are skipped into `warnings`.
Result<std::vector<SharedTimings>> read_shared_timings(RedisClient& client,
                                                       std::vector<std::string>* warnings = nullptr);

// Inductor timing-cache files, one per system: {"system", "cache": {op: {inputs: {precision:
// {choice: shared ms}}}}}, written into `dir` as <dir>/<system hash> (a global_cache_dir for tune()).
Status write_as_global_cache(const std::vector<SharedTimings>& shared, const std::filesystem::path& dir);

// For `kiln-cli timings --redis`: one op per entry and publishing host, device "<name> @ <host>".
timings::TimingSet shared_to_timing_set(const std::vector<SharedTimings>& shared, const std::string& origin);

// `kiln-cli timings --redis URL`: connect, read every shared entry, convert; undecodable entries
// become warnings of the set. An empty URL means torch's variables.
Result<timings::TimingSet> collect_shared_timings(std::string_view url, RedisLimits timeouts = {});

std::string this_host();

}  // namespace kiln::remote
