#pragma once
// What both readers of an Inductor Triton kernel module (timings' kernel_files, retune's
// template_module) find in its text without running it, by hand-written scanning (util/text_scan:
// no regex on a module a hostile cache may hold).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::timings {

// The kernel: `@triton\.jit\s*\ndef\s+(\w+)\s*\(`, the first such match.
struct JitKernel {
    std::size_t at = 0;  // where its "@triton.jit" starts
    std::string name;    // the def's name
};
std::optional<JitKernel> find_jit_kernel(std::string_view text);

// The decorator's launch arguments in `head` (the text before @triton.jit):
// `\n\s*(num_stages|num_warps)\s*=\s*(\d+)\s*,`, each match in order. A value beyond int64 is left out.
std::vector<std::pair<std::string, std::int64_t>> launch_arguments(std::string_view head);

}  // namespace kiln::timings
