#pragma once
// One resolver for "an entry" on the command line: a local file path or a remote value
// `redis://[user:password@]host:port[/db]/KEY`. KEY is a full Redis key (pt2:fx-graph-v1::f…:c1)
// or an Inductor key alone (f… / a…), looked up under fx-graph-v1 and autograd-experimental.
// `show`, `guards` and `diff` call it so they accept remote entries with a one-line change.
#include <optional>
#include <string>
#include <string_view>

#include "remote/redis_client.hpp"
#include "remote/remote_browser.hpp"
#include "util/result.hpp"

namespace kiln::remote {

struct EntryBytes {
    std::string bytes;   // the pickle, exactly as a local entry file holds it
    std::string origin;  // the path, or redis://host:port/db/<redis key> (no password)
    bool remote = false;
    std::optional<long long> time_taken_ms;  // remote values record it beside the pickle
};

// Errors: Errc::not_found (no such file / key), Errc::parse (a value that does not unwrap),
// Errc::invalid_argument (the key holds JSON, e.g. an autotune result, not a graph entry),
// and the client's connection errors.
Result<EntryBytes> load_entry_any(std::string_view spec, RedisLimits timeouts = {});

// A remote value of any kind, classified (for `show` of autotune keys and foreign values).
Result<RemoteEntry> load_remote_value(std::string_view url, RedisLimits timeouts = {});

}  // namespace kiln::remote
