#pragma once
// Text decoding for pickle arguments: UTF-8 validation (as Python's "surrogatepass"), the
// protocol-0 escapes (STRING's repr escapes, UNICODE's raw-unicode-escape), and latin-1.
#include <string>
#include <string_view>

namespace kiln::pickle {

// True when `s` is UTF-8 as Python's decoder with errors="surrogatepass" accepts it.
bool valid_utf8(std::string_view s);
// Every byte is a code point U+0000..U+00FF.
std::string latin1_to_utf8(std::string_view s);
void append_utf8(std::string& out, char32_t cp);
// The longest prefix of UTF-8 text `s` of at most `n` bytes that ends on a character boundary.
std::string_view utf8_prefix(std::string_view s, std::size_t n);
// raw-unicode-escape: \uXXXX and \UXXXXXXXX escapes, other bytes latin-1. Null message on success.
const char* decode_raw_unicode_escape(std::string_view s, std::string& out);
// The body of a quoted Python 2 str repr (STRING): \\ \' \" \n \t \r \a \b \f \v \xHH \ooo.
const char* decode_string_escapes(std::string_view quoted, std::string& out);
bool is_ascii(std::string_view s);
// Strict UTF-8 for JSON: encoded surrogates (allowed in a Python str) and any invalid
// sequence become U+FFFD.
std::string strict_utf8(std::string_view s);

}  // namespace kiln::pickle
