#pragma once
// The one UTF-8 decoder step: the length of the well-formed sequence at s[i], by the table of
// Unicode 15 §3.9 (no overlongs, nothing above U+10FFFF). Encoded surrogates (ED A0..BF) are
// refused unless allowed: Python's "surrogatepass" accepts them (a pickled str may hold them),
// JSON and nlohmann do not.
#include <cstddef>
#include <string>
#include <string_view>

namespace kiln {

enum class Surrogates : bool { refuse, allow };

// 1..4, or 0 when no well-formed sequence starts at s[i] (i < s.size()).
std::size_t utf8_sequence(std::string_view s, std::size_t i, Surrogates surrogates = Surrogates::refuse);

// The offset of the first byte of `s` that does not start a well-formed sequence (surrogates refused,
// as JSON refuses them), or npos when all of `s` is UTF-8.
std::size_t first_invalid_utf8(std::string_view s);

// A name from an untrusted source (a blob's key, a file name in a shared cache) made safe to print on a
// terminal, one line: printable UTF-8 stays; a backslash is doubled; \n \r \t are written so; other
// control bytes (ESC, DEL, ...) and bytes that are not UTF-8 become \xNN; C1 controls and the bidi
// overrides (U+202A-202E, U+2066-2069, U+200E/F) become \uXXXX. Every front end prints such names
// through it, never raw.
std::string printable_name(std::string_view s);

// `s` cut to at most `max_bytes` bytes at a character boundary, with "…" appended when it was cut
// (one line of a report must not end in half a character).
std::string shortened(std::string_view s, std::size_t max_bytes);

}  // namespace kiln
