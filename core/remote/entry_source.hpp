#pragma once
// Remote graph entries by URL, `redis://[user:password@]host:port[/db]/KEY`: KEY is a full Redis
// key (pt2:fx-graph-v1::f…:c1) or an Inductor key alone (f… / a…), looked up under fx-graph-v1 and
// autograd-experimental. The front ends hand fetch_entry to frontend/entry_ref.hpp, which parses
// every entry reference (show, guards, diff, the GUI's Diff view).
#include <string_view>

#include "frontend/entry_ref.hpp"
#include "remote/redis_client.hpp"
#include "remote/remote_browser.hpp"
#include "util/result.hpp"

namespace kiln::remote {

// The entry's pickle and its origin redis://host:port/db/<redis key> (no password).
// Errors: Errc::not_found (no such key), Errc::parse (a value that does not unwrap),
// Errc::invalid_argument (the key holds JSON, e.g. an autotune result, not a graph entry),
// and the client's connection errors.
Result<frontend::FetchedEntry> fetch_entry(std::string_view url, RedisLimits timeouts = {});

// A remote value of any kind, classified (for `show` of autotune keys and foreign values).
Result<RemoteEntry> load_remote_value(std::string_view url, RedisLimits timeouts = {});

}  // namespace kiln::remote
