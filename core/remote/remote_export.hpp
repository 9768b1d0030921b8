#pragma once
// A local Inductor cache in Inductor's remote form: what FxGraphCache / AOTAutogradCache /
// AutotuneCache would have PUT had the remote cache been on when it was written. Used to seed a
// team's server from one machine's cache, and by the tests and benchmarks to fill a real server.
#include <filesystem>
#include <string>
#include <vector>

#include "remote/redis_client.hpp"
#include "util/result.hpp"

namespace kiln::remote {

struct RemoteItem {
    std::string redis_key;    // pt2:<cache_id>::<key>:c1
    std::string value;        // the bytes Inductor writes
    std::string source_path;  // the local file it came from
};

// fxgraph/<xx>/<key>/<entry> -> fx-graph-v1 (time_taken_ms from the entry's _time_taken_ns),
// aotautograd/<key>/<entry> -> autograd-experimental, <xx>/<hex>.best_config ->
// autotune-best-config-v2 (keyed by the file's hex name: the local name hashes Inductor's remote
// key with torch_key, so the original key is not recoverable). A key dir with several entries
// gives one item per entry under the same key; the last one in sorted order wins on the server,
// as it would for Inductor (one remote value per key). Entries are read in full (~MBs each).
Result<std::vector<RemoteItem>> remote_items_from_local(const std::filesystem::path& root);

// The remote value of one graph entry file: {"data": base64, "time_taken_ms": n}.
Result<std::string> graph_value_from_file(const std::filesystem::path& entry);

// SETs the items in pipelined batches of `batch`.
Status publish_items(RedisClient& client, const std::vector<RemoteItem>& items, std::size_t batch = 64);

}  // namespace kiln::remote
