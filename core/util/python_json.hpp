#pragma once
// JSON text exactly as Python's `json` module writes it, so that files and hashes shared with
// Inductor match byte for byte: `json.dumps(obj, sort_keys=...)` (", " / ": " separators) and
// `json.dumps(obj, indent=4)` ("," / ": ", newlines), ASCII-only escapes, floats in repr form,
// and Python's non-standard Infinity / -Infinity / NaN tokens, which Inductor writes for failed choices.
// The one implementation: the timing caches, Redis values and shared timings all write through it.
#include <cstddef>
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

// The work py_loads did on objects' keys, counted (not timed): every key is appended to its object,
// and keys are compared with each other only to find duplicates, once per object at its end, which is
// O(k log k) comparisons for k keys. nlohmann's own ordered parse compared each key with every key
// before it, quadratic in an object's keys (issue 42 #15: 150,000 inputs keys under one op).
struct PyLoadsWork {
    std::size_t keys = 0;             // object keys read, each appended to its object
    std::size_t key_comparisons = 0;  // comparisons of one key with another
};

// Parses JSON that may contain Python's Infinity / -Infinity / NaN (outside strings; NaN is kept as
// a NaN double). Text nested deeper than kMaxJsonDepth is an Errc::parse error naming `context`.
// `work`, when given, receives the counts above (tests).
Result<nlohmann::ordered_json> py_loads(std::string_view text, const std::string& context = {},
                                        PyLoadsWork* work = nullptr);

// Nesting bound for JSON read from caches, logs and servers: nlohmann's dump(), copies and
// comparisons recurse, so every JSON text from outside is checked before it is parsed. Inductor's
// files nest a handful of levels; Python's own json gives up near 1000.
inline constexpr int kMaxJsonDepth = 512;
int json_nesting_depth(std::string_view text);  // deepest [ / { nesting outside strings

// The one string-aware scan of JSON text: fn(i, c) for each bracket ([ ] { }) from `from` on that is
// not inside a string literal; fn returns false to stop.
template <class Fn>
void for_each_json_bracket(std::string_view text, std::size_t from, Fn&& fn) {
    bool in_string = false;
    for (std::size_t i = from; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == ']' || c == '{' || c == '}') {
            if (!fn(i, c)) return;
        }
    }
}
// The JSON object that starts at `open` (a '{'), through its matching '}'; empty when it does not close.
std::string_view json_object_at(std::string_view text, std::size_t open);
Status check_json_depth(std::string_view text, const std::string& context);

}  // namespace kiln
