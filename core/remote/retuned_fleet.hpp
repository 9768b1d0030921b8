#pragma once
// A fleet of re-tuners sharing one Redis (issue 31): each host re-tunes a slice of a cache's ops
// (`retune --shard I/N`) and publishes every complete op it measured; any host of the same GPU kind
// fetches them into its own timing cache (`--fetch URL --write`). Kiln's keys, one per op and
// system, and their values: handback/fleet_value.hpp. An op is only ever published complete, so the
// newest publish of a key replaces it whole. One publish is one MULTI/EXEC: a server that drops or
// stalls mid-way applies none of it.
#include <string>
#include <string_view>
#include <vector>

#include "handback/fleet_value.hpp"
#include "handback/measured_op.hpp"
#include "remote/redis_client.hpp"
#include "timings/timing_model.hpp"

namespace kiln::remote {

using handback::kRetunedPrefix;
using handback::retuned_key;

struct FleetPublish {
    std::string server;
    std::vector<std::string> keys;  // in the order published
};

Result<FleetPublish> publish_retuned(RedisClient& client, const std::vector<handback::MeasuredOp>& ops,
                                     const std::string& host);
Result<FleetPublish> publish_retuned(std::string_view url, const std::vector<handback::MeasuredOp>& ops,
                                     const std::string& host, RedisLimits limits = {});

struct FleetEntries {
    std::string server;
    std::vector<handback::MeasuredOp> ops;  // sorted by key; versions.from names the server and host
    std::vector<std::string> keys;          // ops[i]'s key
    std::vector<std::string> warnings;      // values that did not decode (handback::decode_fleet_value)
};

Result<FleetEntries> read_retuned(RedisClient& client);
Result<FleetEntries> read_retuned(std::string_view url, RedisLimits limits = {});

// The entries measured on a device of one of these names (the GPU kinds of this machine).
std::vector<handback::MeasuredOp> for_devices(const FleetEntries& entries, const std::vector<std::string>& names);

// For `kiln-cli timings redis://…`: one op per entry, device "<name> @ <host>", spreads kept.
timings::TimingSet retuned_to_timing_set(const FleetEntries& entries);

}  // namespace kiln::remote
