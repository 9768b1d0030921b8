#pragma once
// One fleet value (issue 31): an op a host re-tuned completely, as published to Redis
// (remote/retuned_fleet) under the key
//   kiln:retuned:v1:<device name>:<CUDA version>:<sha256(Triton key)[:16]>:<op>:<sha256(inputs \n precision)[:16]>
// holding {"system" (torch's dict, "hash" included), "op", "inputs_key", "precision", "device",
// "host", "published", "choices": {choice key: {"kind", "ms", "spread_ms"}}}. Written and read here,
// without Redis, so that the reader is tested and fuzzed on its own.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "handback/measured_op.hpp"
#include "util/result.hpp"

namespace kiln::handback {

inline constexpr std::string_view kRetunedPrefix = "kiln:retuned:v1:";

std::string retuned_key(const MeasuredOp& op);

// The value published for `op` by `host` at `published` (Unix seconds).
nlohmann::ordered_json fleet_value(const MeasuredOp& op, const std::string& host, std::int64_t published);

// One value read back under `key` from `server`, every field checked (util/json_get). Error (parse)
// for a value that is not a whole op of this key: not JSON, a missing or wrong-typed field (named by
// its path, e.g. `choices["mm-c..."].kind is 7, not a string`), a time that is negative, NaN or
// Infinity (an op is only published complete: every choice measured), or a value copied under
// another op's key. A fleet reader makes each such key a warning and keeps the others (issue 42 #7,
// #8): nothing of it reaches a timing cache.
Result<MeasuredOp> decode_fleet_value(const std::string& key, std::string_view value, const std::string& server);

}  // namespace kiln::handback
