#pragma once
// Classification of what torch writes beside the Inductor cache proper (dynamo/, Triton staging
// and autotune dirs, debug output, nested roots, ...), split from classify.cpp. Each function
// returns nullopt when its rules do not apply, so classify_path falls back to the §2 rules.
#include <cstddef>
#include <optional>
#include <string_view>

#include "inductor/classify.hpp"

namespace kiln::inductor {

// `rel` has `n` segments: `top`, `second` (empty when n == 1), ..., `name` (the file name).
std::optional<Classification> classify_torch_folder(std::string_view rel, std::string_view top, std::string_view second,
                                                    std::string_view name, std::size_t n);

// A file in a Triton cache: `dir` is the segment under the device dir (<HASH>, tmp.<uuid>, <hex64>),
// `sub` the segment below it when the file sits one level deeper (else empty), `direct` whether
// the file lies in `dir` itself.
std::optional<Classification> classify_triton_extra(std::string_view rel, std::string_view dir, std::string_view sub,
                                                    std::string_view name, bool direct);

// Python's tempfile names: "tmp" and 8 of [a-z0-9_] (mkdtemp, NamedTemporaryFile before its suffix).
bool is_python_temp_name(std::string_view s);

}  // namespace kiln::inductor
