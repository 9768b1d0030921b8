#pragma once
// Inductor's remote cache keys: `pt2:<cache_id>::<key>:c<version>` (RedisRemoteCache writes
// version 1; ../shared/docs/inductor-cache-format.md §9). Cache ids seen in torch 2.x:
// fx-graph-v1, autograd-experimental, autotune-best-config-v2, bundled-autotune-v1.
#include <optional>
#include <string>
#include <string_view>

namespace kiln::remote {

inline constexpr std::string_view kFxGraphCacheId = "fx-graph-v1";
inline constexpr std::string_view kAutogradCacheId = "autograd-experimental";
inline constexpr std::string_view kAutotuneCacheId = "autotune-best-config-v2";
// SCAN pattern for every Inductor key (other applications may share the server).
inline constexpr std::string_view kInductorKeyPattern = "pt2:*";

struct RemoteKey {
    std::string cache_id;
    std::string key;
    int version = 1;
};

// nullopt for keys of other applications (or of a future format): listed as foreign, not parsed.
std::optional<RemoteKey> parse_remote_key(std::string_view redis_key);
std::string format_remote_key(std::string_view cache_id, std::string_view key, int version = 1);

// What a cache id holds: graph pickles wrapped in JSON, or plain JSON (autotune results).
enum class RemoteValueKind { graph_pickle, json };
RemoteValueKind value_kind_for(std::string_view cache_id);

}  // namespace kiln::remote
