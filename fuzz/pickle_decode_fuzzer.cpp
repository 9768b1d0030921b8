// libFuzzer target: any byte string through the safe pickle decoder, the graph-entry views, the
// JSON mapping, the tree walk and the disassembler. Every path must return a value or an
// error: a crash, a sanitizer report, a timeout or an over-allocation is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "inductor/graph_entry.hpp"
#include "pickle/decoder.hpp"
#include "pickle/disassemble.hpp"
#include "pickle/json.hpp"

namespace {

using namespace kiln;

// Touch everything the CLI and GUI would read from a decoded entry.
void exercise_entry(const inductor::GraphEntry& e) {
    (void)e.type();
    for (const auto& name : e.field_names()) (void)e.field(name);
    (void)e.cache_key();
    (void)e.source_code();
    (void)e.guards_expr();
    (void)e.fx_graph_cache_key();
    (void)e.time_taken_ns();
    (void)e.debug_lines();
    (void)e.device_types();
    (void)e.device_idxs();
    (void)e.mutated_inputs();
    (void)e.mutated_input_idxs();
    (void)e.constant_names();
    (void)e.output_strides();
    (void)e.counter_deltas();
    (void)e.triton_bundle();
    (void)e.forward_fx_key();
    (void)e.backward_fx_key();
    (void)e.to_json().dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::strict);
}

// The GUI's lazy object tree: a bounded breadth-first walk over children().
void walk(pickle::Ref root) {
    std::vector<pickle::Ref> frontier{root};
    std::size_t visited = 0;
    while (!frontier.empty() && visited < 2000) {
        pickle::Ref v = frontier.back();
        frontier.pop_back();
        ++visited;
        (void)pickle::short_repr(v, 80);
        for (auto& c : pickle::children(v)) frontier.push_back(c.value);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view bytes(reinterpret_cast<const char*>(data), size);

    auto doc = pickle::decode_bytes(bytes, "fuzz");
    if (!doc.ok()) {
        (void)doc.error().str();
    } else if ((*doc)->root()->is(pickle::Kind::call)) {
        exercise_entry(inductor::GraphEntry(*doc, "fuzz"));  // what decode_graph_entry returns
        walk((*doc)->root());
    } else {
        pickle::JsonOptions jo;
        jo.max_nodes = 100'000;
        (void)pickle::to_json((*doc)->root(), jo).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::strict);
        walk((*doc)->root());
    }

    kiln::Error err;
    auto ops = pickle::disassemble_prefix(bytes, &err);
    for (const auto& op : ops) (void)pickle::format_op(op);
    return 0;
}
