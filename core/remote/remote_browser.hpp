#pragma once
// Browsing a remote cache: SCAN over Inductor's keys, GET the values in pipelined batches, and
// unwrap each value by its cache id. Streams batch by batch so memory stays bounded by one batch
// (values reach megabytes); a corrupt or foreign value is an entry with a problem, never fatal.
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "inductor/graph_entry.hpp"
#include "remote/redis_client.hpp"
#include "remote/remote_key.hpp"
#include "util/result.hpp"

namespace kiln::remote {

enum class RemoteState : std::uint8_t {
    graph,    // a graph cache value whose pickle was unwrapped (the pickle itself is decoded later)
    json,     // a JSON value (autotune results, caches Kiln does not know)
    corrupt,  // an Inductor key whose value does not decode: `problem` says why
    foreign,  // not an Inductor key (another application's data in the same server)
    missing,  // gone between SCAN and GET, or not a string value
};
const char* remote_state_name(RemoteState s);

struct RemoteEntry {
    std::string redis_key;
    std::string cache_id;  // empty for foreign keys
    std::string key;       // Inductor's key inside the cache id
    RemoteState state = RemoteState::missing;
    std::uint64_t value_bytes = 0;  // size of the stored value
    std::optional<long long> time_taken_ms;
    std::string pickle;           // graph: the entry bytes (when BrowseOptions::keep_values)
    nlohmann::ordered_json json;  // json: the value (when keep_values)
    std::string problem;          // corrupt: the error, one line
    // With BrowseOptions::decode_graphs: the decoded graph entry (its buffer now holds the pickle,
    // so `pickle` is left empty), or why the pickle does not decode.
    std::shared_ptr<const inductor::GraphEntry> graph;
    std::string decode_problem;
};

struct BrowseOptions {
    std::string match = std::string(kInductorKeyPattern);  // SCAN MATCH pattern
    int scan_count = 1000;                                 // SCAN COUNT hint: keys the server looks at per step
    std::size_t batch = 32;      // values per batch: small enough to stay in cache between fetch and decode
    bool keep_values = true;     // false: sizes and states only (stats), values dropped after checking
    bool decode_graphs = false;  // also decode each graph pickle with Kiln's decoder (RemoteEntry::graph)
    unsigned threads = 0;        // unwrapping and decoding a batch: 0 = one per hardware thread
    const std::atomic<bool>* cancel = nullptr;
};

struct BrowseTotals {
    std::uint64_t keys = 0;
    std::uint64_t value_bytes = 0;
    std::uint64_t round_trips = 0;  // SCAN steps + GET batches
};

// Each batch is fetched on a thread of its own while the previous one is unwrapped (and decoded)
// on `threads` threads. The sink is called once per batch, in SCAN order, on the calling thread; the batch is the callee's to move from. Returning an
// error stops the browse with it.
using BatchSink = std::function<Status(std::vector<RemoteEntry>& batch)>;

Result<BrowseTotals> browse_remote(RedisClient& client, const BrowseOptions& options, const BatchSink& sink);

// Unwraps one value by the cache id of its key (exposed for `show` and tests).
RemoteEntry classify_remote_value(std::string redis_key, std::optional<std::string> value, bool keep_value);
RemoteEntry classify_remote_value(std::string redis_key, std::optional<std::string_view> value, bool keep_value);

}  // namespace kiln::remote
