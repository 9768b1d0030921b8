#pragma once
// The environment-bound components of one cache key, read from its debug lines (an FX entry's
// `_fx_graph_cache_debug_lines`, an AOT entry's inner forward/backward lines, a TORCH_TRACE cache
// event's `components`), and the parts of a key that tie it to one machine without being about
// hardware (absolute paths, device indices, a cache key tag).
#include <optional>
#include <string>
#include <vector>

#include "inductor/debug_lines.hpp"
#include "portability/fingerprint.hpp"

namespace kiln::portability {

// Something in a key that breaks sharing between identical machines.
struct Hazard {
    std::string component;  // "inductor_config[cpp.cxx]", "example_inputs[*].device", ...
    std::string value;
    std::string why;
};

struct KeyEnv {
    Fingerprint env;                                 // the environment-bound components (names:: key names)
    std::vector<inductor::KeyComponentView> config;  // every inductor_config[...] line: views into the input
    std::vector<Hazard> hazards;
};

// `source` names where the lines came from ("entry", "trace <log>:<line>"). `config` views the
// components given, which must outlive its use.
KeyEnv key_env(const std::vector<inductor::KeyComponentView>& components, const std::string& source);
KeyEnv key_env(const std::vector<inductor::KeyComponent>& components, const std::string& source);

// All that key_env reads of `components`, as one string: equal strings, equal KeyEnvs (whatever the
// source). Leaves out what it does not read (gm; example_inputs but for their devices), so the entries
// of one environment give one string (portability::SeenKeys deduplicates by it before key_env runs).
// Written into `out` (cleared first): a caller's reused buffer keeps a large key's string off the allocator.
void key_env_input(const std::vector<inductor::KeyComponentView>& components, std::string& out);
std::string key_env_input(const std::vector<inductor::KeyComponentView>& components);

// The debug lines of one key as component views (lines that are not components are left out).
std::vector<inductor::KeyComponentView> component_views(const std::vector<std::string_view>& lines);

// The pickle protocol that made the key's component hashes (4 up to Python 3.13, 5 from 3.14),
// recomputed from a string component (system_info[hash], cache_key_tag); nullopt when none matches.
std::optional<int> detect_protocol(const std::vector<inductor::KeyComponentView>& components);
std::optional<int> detect_protocol(const std::vector<inductor::KeyComponent>& components);

// system_info[hash] recomputed from the printed system_info[device] and [version] as Inductor does
// (sha256 of json.dumps(system, sort_keys=True)); nullopt when they are unknown or do not parse.
// A CPU-only system ({}: both absent) gives the hash of "{}".
std::optional<std::string> recompute_system_hash(const Fingerprint& fp);

// Adds a note to `fp` when its system_info[hash] is not the hash of its device and version.
void check_system_hash(Fingerprint& fp);

// The device scope a component name belongs to (names:: key names; inductor_config[...] is environment).
Scope scope_of(std::string_view component_name);

}  // namespace kiln::portability
