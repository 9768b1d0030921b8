#pragma once
// Triton's kernel metadata, `<key dir>/<name>.json` (`num_warps`, `shared`, `target`, scratch sizes,
// launch flags), read into what Kiln's launcher needs. Every field goes through util/json_get: one
// wrong-typed or out-of-range field (`"num_warps": "8"`, `"name": 123`, a 23-digit `shared`) is an
// error naming it, which costs the choices of that kernel only (issue 42 #7).
#include <string>

#include <nlohmann/json.hpp>

#include "util/result.hpp"
#include "worker/triton_launch.hpp"

namespace kiln::retune {

// `j`: the parsed metadata; `stem`: the file's stem, the kernel's name when the metadata has none;
// `origin`: the file, for errors. The binary's paths (cubin, ptx) are left empty.
Result<worker::TritonBinary> binary_from_metadata(const nlohmann::json& j, const std::string& stem,
                                                  const std::string& origin);

}  // namespace kiln::retune
