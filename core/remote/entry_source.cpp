#include "remote/entry_source.hpp"

#include <fstream>
#include <sstream>

#include "remote/remote_graph.hpp"
#include "remote/remote_key.hpp"

namespace kiln::remote {
namespace {

Result<EntryBytes> read_local(std::string_view path) {
    std::ifstream in{std::string(path), std::ios::binary};
    if (!in) return io_error("open", std::string(path), errno);
    std::ostringstream ss;
    ss << in.rdbuf();
    return EntryBytes{ss.str(), std::string(path), false, std::nullopt};
}

}  // namespace

Result<RemoteEntry> load_remote_value(std::string_view url, RedisLimits timeouts) {
    KILN_TRY(auto ref, parse_redis_key_url(url));
    KILN_TRY(auto client, RedisClient::connect(ref.endpoint, timeouts));
    std::vector<std::string> candidates{ref.key};
    if (!ref.key.starts_with("pt2:")) {  // an Inductor key alone
        candidates = {format_remote_key(kFxGraphCacheId, ref.key), format_remote_key(kAutogradCacheId, ref.key)};
        if (ref.key.starts_with('a')) std::swap(candidates[0], candidates[1]);
    }
    KILN_TRY(auto values, client.get_many(candidates));
    for (size_t i = 0; i < candidates.size(); ++i)
        if (values[i]) return classify_remote_value(candidates[i], std::move(values[i]), true);
    std::string tried;
    for (const auto& c : candidates) tried += (tried.empty() ? "" : ", ") + c;
    return make_error(Errc::not_found, "no such key in the remote cache", ref.endpoint.display(),
                      "tried " + tried + "; list the keys with kiln-cli stats --redis");
}

Result<EntryBytes> load_entry_any(std::string_view spec, RedisLimits timeouts) {
    if (!is_redis_url(spec)) return read_local(spec);
    KILN_TRY(auto ref, parse_redis_key_url(spec));
    KILN_TRY(auto entry, load_remote_value(spec, timeouts));
    std::string origin = remote_origin(ref.endpoint, entry.redis_key);
    if (entry.state == RemoteState::corrupt)
        return make_error(Errc::parse, "the remote value does not decode: " + entry.problem, origin);
    if (entry.state != RemoteState::graph)
        return make_error(Errc::invalid_argument,
                          std::string("the key holds ") + (entry.state == RemoteState::json ? "JSON" : "foreign data") +
                              ", not a graph entry",
                          origin, "graph entries live under pt2:fx-graph-v1:: and pt2:autograd-experimental::");
    return EntryBytes{std::move(entry.pickle), std::move(origin), true, entry.time_taken_ms};
}

}  // namespace kiln::remote
