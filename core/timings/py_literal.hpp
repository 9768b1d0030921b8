#pragma once
// Just enough of Python's literal syntax to read what Inductor prints into its files and logs:
// scalars (True, 42, 1.5, 'tl.float32'), "K=V, K=V" parameter lists, flat dicts and the repr of
// the timing cache's input keys. Never evaluates anything.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace kiln::timings {

// One scalar: True/False/None, an int, a float, or a quoted string; anything else is kept as text.
nlohmann::ordered_json py_scalar(std::string_view text);

// "ACC_TYPE='tl.float32', BLOCK_K=128, num_warps=4" -> ordered object. Commas inside quotes are kept.
nlohmann::ordered_json py_kwargs(std::string_view text);

// "{'EVEN_K': True, 'BLOCK_M': 64}" (flat, no nesting) -> ordered object.
Result<nlohmann::ordered_json> py_flat_dict(std::string_view text);

// The flat dict that follows the first `marker` ("'config_args':", "size_hints="): from the next '{'
// to its match (scan::balanced_braces, core's one brace matcher), read by py_flat_dict. nullopt when
// `marker` is absent; Errc::parse (context `context`) when no dict follows or it never closes.
Result<std::optional<nlohmann::ordered_json>> py_dict_after(std::string_view text, std::string_view marker,
                                                            const std::string& context = {});

// The timing cache's inputs key: "[('cuda', 'torch.float16', 512, 512, 512, 1, 0), ...]".
struct TensorKey {
    std::string device;              // "cuda"
    std::string dtype;               // "float16" (without "torch.")
    std::vector<std::string> sizes;  // as written (ints, or symbols in other torch versions)
    std::vector<std::string> strides;
    std::string offset;
};
Result<std::vector<TensorKey>> parse_inputs_key(std::string_view key);

// Splits on `sep` outside quotes, brackets and parentheses; trims each part.
std::vector<std::string> split_top_level(std::string_view text, char sep);
std::string trim(std::string_view s);

}  // namespace kiln::timings
