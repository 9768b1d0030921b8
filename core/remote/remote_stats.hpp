#pragma once
// `kiln-cli stats --redis`: the local stats schema (inductor/stats.hpp) over a remote cache, with
// categories named by cache id (fx-graph-v1, autograd-experimental, autotune-best-config-v2, …).
// Counts and sizes only: values are unwrapped to tell corrupt ones, never kept.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "remote/remote_browser.hpp"

namespace kiln::remote {

struct RemoteCategoryStats {
    std::uint64_t keys = 0;
    std::uint64_t bytes = 0;
    std::uint64_t corrupt = 0;
};

struct RemoteStats {
    std::string root;                                       // the endpoint, no password
    std::map<std::string, RemoteCategoryStats> categories;  // by cache id; "foreign" for other keys
    std::uint64_t total_keys = 0;
    std::uint64_t total_bytes = 0;
    std::uint64_t unreadable = 0;       // corrupt values + keys gone or not strings
    std::vector<std::string> problems;  // the first `max_problems`: "<redis key>: <why>"
    BrowseTotals browse;
};

Result<RemoteStats> collect_remote_stats(RedisClient& client, BrowseOptions options = {},
                                         std::size_t max_problems = 100);

// {"root", "categories": {id: {"files", "entries", "bytes"}}, "fxgraph_keys", "total": {"files",
// "bytes"}, "unreadable"}: one key is one file and one entry.
nlohmann::ordered_json to_json(const RemoteStats& stats);
// The table `kiln-cli stats` prints, for a remote cache.
std::string format_remote_stats(const RemoteStats& stats);

}  // namespace kiln::remote
