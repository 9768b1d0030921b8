#pragma once
// JSON text exactly as Python's `json` module writes it, so that files and hashes shared with
// Inductor match byte for byte: `json.dumps(obj, sort_keys=...)` (", " / ": " separators) and
// `json.dumps(obj, indent=4)` ("," / ": ", newlines), ASCII-only escapes, floats in repr form,
// and Python's non-standard Infinity / -Infinity / NaN tokens, which Inductor writes for failed choices.
// The one implementation: the timing caches, Redis values and shared timings all write through it.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "util/result.hpp"

namespace kiln {

struct PyDumpOptions {
    bool sort_keys = false;
    int indent = -1;  // -1: one line with ", " and ": "; >= 0: Python's indented form
};

std::string py_dumps(const nlohmann::ordered_json& value, const PyDumpOptions& options = {});

// Python's float repr (shortest round-trip form, "1e-05", "1.0", "inf" as "Infinity").
std::string py_float_repr(double v);

// Parses JSON that may contain Python's Infinity / -Infinity / NaN (outside strings).
Result<nlohmann::ordered_json> py_loads(std::string_view text, const std::string& context = {});

}  // namespace kiln
