#include "remote/entry_source.hpp"

#include "remote/remote_graph.hpp"
#include "remote/remote_key.hpp"

namespace kiln::remote {

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

Result<frontend::FetchedEntry> fetch_entry(std::string_view url, RedisLimits timeouts) {
    KILN_TRY(auto ref, parse_redis_key_url(url));
    KILN_TRY(auto entry, load_remote_value(url, timeouts));
    std::string origin = remote_origin(ref.endpoint, entry.redis_key);
    if (entry.state == RemoteState::corrupt)
        return make_error(Errc::parse, "the remote value does not decode: " + entry.problem, origin);
    if (entry.state != RemoteState::graph)
        return make_error(Errc::invalid_argument,
                          std::string("the key holds ") + (entry.state == RemoteState::json ? "JSON" : "foreign data") +
                              ", not a graph entry",
                          origin, "graph entries live under pt2:fx-graph-v1:: and pt2:autograd-experimental::");
    return frontend::FetchedEntry{std::move(entry.pickle), std::move(origin)};
}

}  // namespace kiln::remote
