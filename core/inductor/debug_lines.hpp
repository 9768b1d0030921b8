#pragma once
// The components of an FX graph cache key (docs/inductor-cache-format.md §6): each line of
// `_fx_graph_cache_debug_lines`, and each of a TORCH_TRACE cache event's `components`, reads
// `[<sha256_hash of the component>] <name>[<index>]: <value>`, where the value may span lines
// (the `gm` component holds the graph's code).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace kiln::inductor {

struct KeyComponent {
    std::string hash;   // 51 base32 characters
    std::string name;   // "gm", "inductor_config[max_fusion_size]", "example_inputs[0]", ...
    std::string value;  // the printed value, newlines kept
};

// A component without copies: views into the item it was split from.
struct KeyComponentView {
    std::string_view hash;
    std::string_view name;
    std::string_view value;
};
// Splits one "[hash] name: value" item (or "[hash] name:" with an empty value); nullopt when it is
// not one (see starts_component) or has no name.
std::optional<KeyComponentView> split_component_view(std::string_view item);

// One component per list item; an item that does not start with "[hash] " continues the value of
// the previous one (a log that split a multi-line value). Errors name the item index.
Result<std::vector<KeyComponent>> parse_debug_lines(const std::vector<std::string>& lines);
// Only the components whose name starts with `prefix` ("example_inputs["), as parse_debug_lines has
// them, and its errors: the others (the `gm` component holds the graph's whole code) are never copied.
// Every graph row read (ls, the GUI's entries, "used by") needs only its inputs.
Result<std::vector<KeyComponent>> parse_debug_lines_named(const std::vector<std::string>& lines,
                                                          std::string_view prefix);
Result<std::vector<KeyComponent>> parse_debug_lines_named(const std::vector<std::string_view>& lines,
                                                          std::string_view prefix);
// A whole text: a component starts at each line that begins with "[hash] ".
Result<std::vector<KeyComponent>> parse_debug_text(std::string_view text);

// A component's value as a front end shows it: as torch printed it, except what is not text. Torch
// prints some values from raw bytes it decoded lossily (`torch_version` is the 32-byte torch_key digest):
// their undecodable bytes are U+FFFD and the rest may be control characters. Those are written as
// `\ufffd` and `\xNN` (newline and tab kept), so the value reads as one escaped string, not mojibake;
// `binary` says it had any (compare such a value by its hash, which torch took of the real bytes).
struct ComponentText {
    std::string text;
    bool binary = false;
};
ComponentText component_value_text(std::string_view value);

// True when `line` starts a component ("[" + 51 base32 chars + "] ").
bool starts_component(std::string_view line);

}  // namespace kiln::inductor
