#pragma once
// Names that come from an input (an op key of a timing cache, a kernel key in a JSON file, a module
// name, a Redis value's system hash) are data, never part of a path as they are: "x/../../outside/pwn"
// as an op name once put a session log outside the cache. A path is built from such a name only
// through file_name_part (an escaped, bounded form with a hash of the whole name), or after
// is_plain_file_name accepted it where the name must be found as it is (torch's own file names).
#include <string>
#include <string_view>

namespace kiln {

// One file-name component for `name`: the name itself when it is 1..40 characters of [A-Za-z0-9_-];
// else its first 40 bytes with every other byte as '_', then '-' and 16 hex digits of a hash of the
// whole name (so that names escaping alike still differ). Never empty, never holds '/' or '.', at
// most 57 bytes. The real name belongs inside the file.
std::string file_name_part(std::string_view name);

// Whether `name` names one entry of a folder as it is: 1..255 bytes of [A-Za-z0-9_.-], not starting
// with '.' (so never "." or "..", never hidden). torch's keys (c<base32>, f<base32>) and SHA-256 hex
// digests pass.
bool is_plain_file_name(std::string_view name);

}  // namespace kiln
