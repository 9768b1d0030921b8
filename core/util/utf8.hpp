#pragma once
// The one UTF-8 decoder step: the length of the well-formed sequence at s[i], by the table of
// Unicode 15 §3.9 (no overlongs, nothing above U+10FFFF). Encoded surrogates (ED A0..BF) are
// refused unless allowed: Python's "surrogatepass" accepts them (a pickled str may hold them),
// JSON and nlohmann do not.
#include <cstddef>
#include <string_view>

namespace kiln {

enum class Surrogates : bool { refuse, allow };

// 1..4, or 0 when no well-formed sequence starts at s[i] (i < s.size()).
std::size_t utf8_sequence(std::string_view s, std::size_t i, Surrogates surrogates = Surrogates::refuse);

}  // namespace kiln
