#pragma once
// AUTOTUNE tables in a saved stderr log of a max-autotune run:
//   Autotune Choices Stats:                      (optional; the next line is JSON, full precision)
//   AUTOTUNE mm(512x512, 512x512)
//   strides: [512, 1], [512, 1]
//   dtypes: torch.float16, torch.float16
//     triton_mm_4 0.0058 ms 100.0% ACC_TYPE='tl.float32', ..., num_warps=4
//   SingleProcess AUTOTUNE benchmarking takes 0.26 seconds and 1.58 seconds precompiling for 20 choices
// Inductor prints only the 10 fastest choices (all of them at DEBUG level), rounded to 0.1 us.
// "Exception <reason> for benchmark choice <Caller>(<module>, <params>)" lines before a table
// are that table's failed choices.
#include <filesystem>
#include <vector>

#include "timings/timing_model.hpp"
#include "util/result.hpp"

namespace kiln::timings {

Result<std::vector<Op>> read_stderr_autotune(const std::filesystem::path& path);
std::vector<Op> parse_stderr_autotune(const std::string& text, const std::string& origin);

bool looks_like_stderr_autotune(const std::string& text);

}  // namespace kiln::timings
