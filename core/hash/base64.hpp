#pragma once
// RFC 4648 base64 (standard alphabet, '=' padding), as Python's base64.b64encode writes it:
// Inductor's remote values carry their pickles this way, Mega-Cache blobs their types and keys.
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace kiln::hash {

std::string base64_encode(std::string_view bytes);
// Strict: rejects characters outside the alphabet and bad padding (a corrupt value must say so,
// not decode to garbage). Ignores nothing, like Python's b64decode(validate=True).
Result<std::string> base64_decode(std::string_view text);

}  // namespace kiln::hash
