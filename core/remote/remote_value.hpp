#pragma once
// Inductor's remote values (RemoteCacheJsonSerde: json.dumps(...).encode()). Graph caches
// (fx-graph-v1, autograd-experimental) wrap the entry pickle: {"data": base64, "time_taken_ms": n};
// autotune caches hold the best_config dict itself.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace kiln::remote {

struct GraphValue {
    std::string pickle;                      // the entry's bytes, as a local cache file holds them
    std::optional<long long> time_taken_ms;  // how long the compile took (Inductor's cost model)
};

// Errors name what is wrong ("not JSON", "no 'data' field", "bad base64") with Errc::parse.
Result<nlohmann::ordered_json> decode_json_value(std::string_view value);
Result<GraphValue> decode_graph_value(std::string_view value);

// The bytes Inductor writes for a graph entry (json.dumps with Python's default separators; other
// values are written with py_dumps, util/python_json.hpp).
std::string encode_graph_value(std::string_view pickle, long long time_taken_ms);

}  // namespace kiln::remote
