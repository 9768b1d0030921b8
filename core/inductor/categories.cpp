// Names of categories, group kinds and root kinds as the CLI, the JSON output and the GUI show them.
#include <array>

#include "inductor/scanner.hpp"

namespace kiln::inductor {

namespace {
constexpr std::array<std::string_view, kCategoryCount> kCategoryNames = {
    "fxgraph",     "aotautograd",        "output_code",    "kernel_module",    "best_config",          "kernel_perf",
    "cpp_source",  "cpp_library",        "cuda_source",    "triton_compiled",  "autotune_local_cache", "lock",
    "temp",        "build_record",       "pgo_profile",    "precompile_entry", "triton_autotune",      "picked_kernel",
    "object_file", "compile_error",      "aoti_artifact",  "halide",           "aoti_eager",           "cutlass",
    "cutedsl",     "precompiled_header", "caching_module", "toolchain",        "nested_root",          "debug_dump",
    "other",
};
}  // namespace

std::string_view category_name(Category c) {
    auto i = static_cast<std::size_t>(c);
    return i < kCategoryNames.size() ? kCategoryNames[i] : "other";
}

std::optional<Category> category_from_name(std::string_view name) {
    for (std::size_t i = 0; i < kCategoryNames.size(); ++i)
        if (kCategoryNames[i] == name) return static_cast<Category>(i);
    return std::nullopt;
}

bool kept_by_default(Category c) { return c == Category::lock || c == Category::pgo_profile; }

std::string_view root_kind_name(RootKind k) { return k == RootKind::triton ? "triton" : "inductor"; }

}  // namespace kiln::inductor
