#pragma once
// JSON text that kiln::dump_json (util/json_out.hpp) wrote, read back with its names of any bytes.
#include <string_view>

#include <nlohmann/json.hpp>

namespace kiln {

// The inverse, for JSON that dump_json wrote: parses `text` (nlohmann's parse, discarded on error)
// with each lone \udc80..\udcff escape read back as the byte it stands for, so a name of any bytes
// written by dump_json comes back byte for byte. nlohmann's own parse refuses those escapes.
nlohmann::json parse_json_bytes(std::string_view text);

}  // namespace kiln
