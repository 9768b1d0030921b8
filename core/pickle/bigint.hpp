#pragma once
// Exact integers beyond int64, kept as minimal little-endian two's-complement bytes (the
// LONG1/LONG4 layout), so decoding never does arithmetic on them.
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::pickle {

// Drops redundant sign-extension bytes from the high end.
std::string_view minimal_le(std::string_view le);
// When `le` (minimal) fits in int64, stores it in `out` and returns true.
bool le_to_int64(std::string_view le, std::int64_t& out);
// Parses optional sign + decimal digits (Python's int() of INT/LONG text, at most 4300 digits
// like Python's own default limit). Sets `small`, or `big_le` when it does not fit int64.
const char* parse_decimal_int(std::string_view text, std::int64_t& small, std::string& big_le);

}  // namespace kiln::pickle
