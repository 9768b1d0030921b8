#include "remote/remote_graph.hpp"

#include "pickle/buffer.hpp"

namespace kiln::remote {

std::string remote_origin(const RedisEndpoint& endpoint, std::string_view redis_key) {
    return endpoint.display() + "/" + std::string(redis_key);
}

Result<inductor::GraphEntry> decode_remote_graph(RemoteEntry& entry, std::string origin) {
    if (entry.state != RemoteState::graph)
        return make_error(Errc::invalid_argument,
                          std::string("not a graph entry (") + remote_state_name(entry.state) + ")", origin,
                          entry.problem.empty() ? "" : entry.problem);
    return inductor::decode_graph_entry(pickle::own_bytes(std::move(entry.pickle), std::move(origin)));
}

}  // namespace kiln::remote
