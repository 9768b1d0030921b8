#pragma once
// The JSON form of a value tree, shared by `kiln-cli show --json`, the GUI and the Redis browser:
//   str -> string; int -> number, or a decimal string when |n| >= 2^53; float -> number (NaN/inf
//   -> "nan"/"inf"/"-inf" strings); bool; None -> null; list/tuple/set/frozenset and
//   torch's OrderedSet -> array (insertion order); dict -> object (non-string keys as their
//   short repr); bytes/bytearray -> {"$bytes": length}; other objects ->
//   {"$type": "module.Class", ...their BUILD state (a dict's items; other state under "$state")};
//   a global -> {"$global": "module.name"}; a node already being printed (a cycle) -> {"$ref": "cycle"}.
#include <nlohmann/json.hpp>

#include "pickle/value.hpp"

namespace kiln::pickle {

struct JsonOptions {
    std::size_t max_depth = 200;        // deeper nodes print as {"$truncated": "depth"}
    std::size_t max_nodes = 5'000'000;  // shared sub-trees repeat in JSON; past this: {"$truncated": "size"}
};

nlohmann::ordered_json to_json(Ref v, const JsonOptions& options = {});

}  // namespace kiln::pickle
