#pragma once
// Reading a whole (bounded) text file as a value, with the path in any error.
#include <cstdint>
#include <filesystem>
#include <string>

#include "util/result.hpp"

namespace kiln::timings {

// Timing files are small; anything past `max_bytes` is refused rather than read.
Result<std::string> read_text_file(const std::filesystem::path& path, std::uintmax_t max_bytes = 64u << 20);

}  // namespace kiln::timings
