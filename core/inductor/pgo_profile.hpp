#pragma once
// A Dynamo PGO profile (`dynamo/code_state_<key>.pkl`, torch._dynamo.pgo): per compiled frame
// (CodeId: file, first line, function, file hash) what automatic-dynamic learned about each input
// (FrameStateSizeEntry: scalar, size, stride), the sizes a later run marks dynamic up front. Read
// from the pickle's inert value tree; nothing is imported or executed.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pickle/value.hpp"

namespace kiln::inductor {

struct PgoInput {
    std::string source;  // the input as Dynamo names it: L['x']
    // Each as text: an int, "dynamic" (AutoDynamic), "unset" (AutoUnset), "infer(dim N)" (InferStride),
    // a tuple "(dynamic, 64)"; empty when the entry has no such field.
    std::string scalar, size, stride;
};

struct PgoFrame {
    std::string filename;
    std::int64_t firstlineno = 0;
    std::string name;
    std::string file_hash;
    std::vector<PgoInput> inputs;  // automatic_dynamic, in pickle order
};

struct PgoProfile {
    std::vector<PgoFrame> frames;
    std::size_t dynamic_inputs() const;  // inputs with a "dynamic" anywhere in them
};

// Nullopt unless `root` is defaultdict(torch._dynamo.pgo.CodeState, {...}).
std::optional<PgoProfile> read_pgo_profile(pickle::Ref root);

// {"type": "pgo_profile", "frames": [{"filename", "firstlineno", "name", "file_hash", "inputs": [...]}]}
nlohmann::ordered_json to_json(const PgoProfile& profile);

}  // namespace kiln::inductor
