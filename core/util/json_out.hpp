#pragma once
// JSON text for any bytes. nlohmann's dump() throws on a string that is not UTF-8 (a file name in a
// cache can be any bytes); this writer never does: each byte that is not part of valid UTF-8 is
// written as \udcXX, as Python's surrogateescape does, so `os.fsencode(json.loads(...))` gives the
// original bytes back. Otherwise the layout is dump()'s byte for byte.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace kiln {

// indent < 0: one line (no spaces), like dump(); else newlines and `indent` spaces per level.
std::string dump_json(const nlohmann::ordered_json& j, int indent = 2);
std::string dump_json(const nlohmann::json& j, int indent = 2);

// Appends `s` as a JSON string literal (quotes included), escaping invalid UTF-8 as above.
void append_json_string(std::string& out, std::string_view s);

// Whether `s` is valid UTF-8 (no surrogates, no overlongs), as nlohmann requires.
bool is_valid_utf8(std::string_view s);

}  // namespace kiln
