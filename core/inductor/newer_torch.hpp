#pragma once
// What a cache holds that Kiln does not know. Kiln's facts are torch 2.11's (docs/inductor-cache-format.md);
// a newer torch writes more: folders such as `cutedsl_compile_cache/`, `aot_compile` and precompile
// artifacts, new key components (`pre_grad_pass_timing`, `provenance_tracking_level`). Kiln never
// guesses what those are: it names them, counts them, and says what they point to.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/debug_lines.hpp"
#include "inductor/scanner.hpp"

namespace kiln::inductor {

// The torch whose cache Kiln's facts were read off.
inline constexpr std::string_view kKnownTorch = "2.11";

// Whether torch 2.11 writes a key component of this name ("inductor_config[x]" counts as
// "inductor_config"): the names of FxGraphHashDetails as 2.11's keys print them.
bool known_key_component(std::string_view name);
// The names of `components` that torch 2.11 does not write, each once, in order.
std::vector<std::string> unknown_key_components(const std::vector<KeyComponent>& components);
std::vector<std::string> unknown_key_components(const std::vector<KeyComponentView>& components);

// Files of a category Kiln does not know: `other` (no torch 2.11 writes them), and `cutedsl`, which
// Kiln knows only from newer torch sources, never from a cache it read.
bool unknown_to_kiln(Category c);
// Where such a file is, for counting: its top folder ("cutedsl_compile_cache/"), the kind of file in a
// code dir ("<xx>/*.ext"), or its name at the top.
std::string unknown_place(std::string_view rel);

struct UnknownPlace {
    std::uint64_t files = 0;
    std::uint64_t bytes = 0;
};

// What a cache holds that torch 2.11 does not write: the places above, and the key components of its
// FX graph entries that 2.11 does not write (read from at most `max_entries` entries).
struct UnknownToKiln {
    std::map<std::string, UnknownPlace> places;
    std::vector<std::string> components;
    std::size_t entries_read = 0;
    std::size_t entries_with_unknown = 0;  // of those read
    bool empty() const { return places.empty() && components.empty(); }
};
void add_unknown_file(UnknownToKiln& u, const Artifact& a);
// Reads the debug lines of the first `max_entries` FX graph entries beneath the opened `root` (key dir
// order), through its descriptor.
void read_key_components(UnknownToKiln& u, const OpenedRoot& root, std::size_t max_entries = 16);

// One line for people, "" when there is nothing: "unknown to Kiln: cutedsl_compile_cache/ (3 files,
// 12.0 kB); key components torch 2.11 does not write: provenance_tracking_level (2 of 9 graph entries
// read): written by a torch newer than 2.11 (2.12?); Kiln shows these as they are and reads nothing
// into them".
std::string describe_unknown(const UnknownToKiln& u);
// {"places": {place: {"files", "bytes"}}, "key_components": [...], "entries_read", "entries_with_unknown",
// "known_torch": "2.11"}.
nlohmann::ordered_json to_json(const UnknownToKiln& u);

}  // namespace kiln::inductor
