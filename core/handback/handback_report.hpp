#pragma once
// What one hand-back did (handback/hand_back.hpp), step by step, for a front end to print: the ops it
// chose (a fleet's, fetched; a run's shard), each op handed back or left out with why, and what each
// target got (--write's files, the fleet's keys, --pin's table). Where it stopped, `error` says why and
// what is above it was done. `kiln-cli handback --json` prints to_json.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "handback/handback_plan.hpp"
#include "handback/lookup_table.hpp"
#include "handback/measured_op.hpp"
#include "handback/timing_cache_write.hpp"

namespace kiln::handback {

// --fetch: the fleet's entries read, and those for this machine's GPU kinds (and shard).
struct FleetFetched {
    std::string server;
    std::size_t entries = 0;               // every entry the fleet holds
    std::vector<std::string> for_devices;  // the GPU kinds fetched for
    std::size_t ops = 0;                   // the entries kept
};

// --shard I/N of a run: `ops` of the run's `of` ops fall in the slice.
struct ShardSlice {
    Shard shard;
    std::size_t ops = 0, of = 0;
    // A slice can be empty (few ops, many hosts): this host has nothing to hand back.
    bool nothing_to_do() const { return ops == 0 && of > 0; }
};

// --publish: the keys written to the fleet's server, by `host`.
struct PublishedOps {
    std::string server, host;
    std::vector<std::string> keys;
};

// --pin: the table written to `path`; with no op pinned nothing was written (the skipped say why).
struct PinnedTable {
    std::string path;
    LookupTable table;
};

struct HandbackReport {
    std::optional<FleetFetched> fetched;
    std::optional<ShardSlice> shard;
    bool decided = false;         // ops, skipped and infinite hold the decision (plan_handback's)
    std::vector<MeasuredOp> ops;  // the complete ops: what is handed back
    std::vector<SkippedOp> skipped;
    std::vector<InfiniteChoice> infinite;
    std::optional<WriteReport> written;
    std::optional<PublishedOps> published;
    std::optional<PinnedTable> pinned;
    std::optional<Error> error;  // where it stopped
};

// How complete_ops agrees one winner across devices that each measured every choice.
std::string agreed_rule_text();

// The report of a hand-back that did not stop: {"fetched", "shard", "complete_ops",
// "agreed_across_devices" (only when some op was agreed across devices), "skipped",
// "infinite", "written", "published", "pinned"}, each target only when asked for; a shard with nothing
// to do is {"shard": {"index", "count", "ops": 0}} alone.
nlohmann::ordered_json to_json(const HandbackReport& report);

}  // namespace kiln::handback
