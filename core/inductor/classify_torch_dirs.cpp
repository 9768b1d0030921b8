#include "inductor/classify_torch_dirs.hpp"

namespace kiln::inductor {
namespace {

// rel's prefix that ends after the segment `seg` (a view into rel).
std::string_view through(std::string_view rel, std::string_view seg) {
    return rel.substr(0, static_cast<std::size_t>(seg.data() + seg.size() - rel.data()));
}

// A directory that lives and dies as one unit (removed as a tree by evict).
Classification dir_group(Category c, std::string_view rel, std::string_view dir, std::string_view key = {}) {
    return {c, GroupKind::key_dir, key, through(rel, dir), false};
}

std::optional<Classification> classify_top_file(std::string_view rel, std::string_view name) {
    if (name == "memoizer_cache.json")
        return single_file(Category::debug_dump, rel);  // TORCHINDUCTOR_DUMP_MEMOIZER_CACHE=1
    if (name == "memoizer_cache.lock") return single_file(Category::lock, rel);
    if (name.ends_with(".py") && is_python_temp_name(name.substr(0, name.size() - 3)))
        return single_file(Category::debug_dump, rel);  // tuning code dumped at DEBUG log level (codegen/wrapper.py)
    if ((name.starts_with("configs_") && name.ends_with(".json")) || name == "compiled_cache.db")
        return single_file(Category::cutlass,
                           rel);  // CUTLASS op lists (codegen/cutlass/cache.py), its moved compile cache
    return std::nullopt;
}

// dynamo/: PGO profiles with their FileLock and temporary (pgo.py), precompile entries (package.py).
Classification classify_dynamo(std::string_view rel, std::string_view second, std::string_view name, std::size_t n) {
    if (n == 2 && name.starts_with("code_state_")) {
        if (name.ends_with(".pkl") && name.size() > 15)
            return single_file(Category::pgo_profile, rel, name.substr(11, name.size() - 15));
        if (name.ends_with(".pkl.lock")) return single_file(Category::lock, rel);
        if (name.ends_with(".pkl.tmp")) return single_file(Category::temp, rel);
    }
    if (n == 3 && is_hex64(second)) return dir_group(Category::precompile_entry, rel, second, second);
    return single_file(Category::other, rel);
}

}  // namespace

bool is_python_temp_name(std::string_view s) {
    if (s.size() != 11 || !s.starts_with("tmp")) return false;
    for (char c : s.substr(3))
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

std::optional<Classification> classify_torch_folder(std::string_view rel, std::string_view top, std::string_view second,
                                                    std::string_view name, std::size_t n) {
    if (n == 1) return classify_top_file(rel, name);
    if (top == "dynamo") return classify_dynamo(rel, second, name, n);
    if (top == "aoti_eager") return single_file(Category::aoti_eager, rel);
    if (top == "autoheuristic" || top == "bisect" || top == "unhashed_kernel_inputs")
        return single_file(Category::debug_dump, rel);
    if (top == "torch_cutlass") return single_file(Category::cutlass, rel);
    if (top == "cutedsl_compile_cache")
        return single_file(name.ends_with(".tmp") ? Category::temp : Category::cutedsl, rel);
    if (top == "precompiled_headers")
        return single_file(name.ends_with(".lock") ? Category::lock : Category::precompiled_header, rel);
    if (top == "gcc") return dir_group(Category::toolchain, rel, top);
    if (top.starts_with("halide-runtime-")) return dir_group(Category::halide, rel, top);
    if (is_python_temp_name(top)) return dir_group(Category::nested_root, rel, top);
    return std::nullopt;
}

std::optional<Classification> classify_triton_extra(std::string_view rel, std::string_view dir, std::string_view sub,
                                                    std::string_view name, bool direct) {
    // TritonBundler's staging dir tmp.<uuid4>, renamed onto the kernel dir when complete (left by a crash).
    if (direct && dir.starts_with("tmp.") && !is_triton_hash(dir)) return dir_group(Category::temp, rel, dir);
    // Triton's Autotuner disk cache: <hex64>/<fn>.autotune.json.
    if (direct && is_hex64(dir) && name.ends_with(".autotune.json"))
        return dir_group(Category::triton_autotune, rel, dir, dir);
    // Triton's FileCacheManager.put staging: <HASH>/tmp.pid_<pid>_<uuid>/<file>.
    if (!direct && !sub.empty() && sub.starts_with("tmp.pid_")) return dir_group(Category::temp, rel, sub);
    return std::nullopt;
}

}  // namespace kiln::inductor
