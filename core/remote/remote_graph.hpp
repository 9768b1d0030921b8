#pragma once
// Remote graph values decoded with Kiln's safe pickle decoder: the same GraphEntry a local
// fxgraph/aotautograd file gives, so show, guards and diff treat both alike.
#include <string>

#include "inductor/graph_entry.hpp"
#include "remote/remote_browser.hpp"

namespace kiln::remote {

// "redis://host:port/db/<redis key>": how a remote entry is named in errors and in `origin`.
std::string remote_origin(const RedisEndpoint& endpoint, std::string_view redis_key);

// Decodes a RemoteState::graph entry's pickle, taking its bytes (no copy): `entry.pickle` is
// empty afterwards. Errors: Errc::invalid_argument for entries of another state, else the
// decoder's parse/limit errors with the origin and byte offset.
Result<inductor::GraphEntry> decode_remote_graph(RemoteEntry& entry, std::string origin);

}  // namespace kiln::remote
