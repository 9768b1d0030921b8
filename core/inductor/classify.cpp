#include "inductor/classify.hpp"

#include <array>

#include "inductor/classify_torch_dirs.hpp"

namespace kiln::inductor {

namespace {

bool all_of(std::string_view s, bool (*pred)(char)) {
    for (char c : s)
        if (!pred(c)) return false;
    return true;
}
bool lower_b32(char c) { return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7'); }
bool upper_b32(char c) { return (c >= 'A' && c <= 'Z') || (c >= '2' && c <= '7'); }
bool lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

// Splits `rel` into at most kMax segments; returns how many there are (more than kMax: kMax + 1).
constexpr std::size_t kMax = 5;
std::size_t split(std::string_view rel, std::array<std::string_view, kMax>& seg) {
    std::size_t n = 0;
    while (!rel.empty()) {
        auto slash = rel.find('/');
        if (n == kMax) return kMax + 1;
        seg[n++] = rel.substr(0, slash);
        if (slash == std::string_view::npos) break;
        rel.remove_prefix(slash + 1);
    }
    return n;
}

// rel's prefix that ends after segment `last` (a directory's relative path).
std::string_view prefix_through(std::string_view rel, std::string_view last) {
    return rel.substr(0, static_cast<std::size_t>(last.data() + last.size() - rel.data()));
}

// <xx>/<name> at the top of an Inductor root: modules, their sidecars and best configs.
Classification classify_code_file(std::string_view rel, std::string_view dir, std::string_view name) {
    if (name.ends_with(".best_config") && is_hex64(name.substr(0, name.size() - 12))) {
        // Named after a hash of the kernel and its configs, not the module key: the scanner joins it
        // to the kernel module of the same directory.
        return {Category::best_config, GroupKind::module, name.substr(0, 64), {}, false};
    }
    if (name.size() < 53 || name[52] != '.') return single_file(Category::other, rel);
    std::string_view key = name.substr(0, 52);
    if (!is_code_key(key) || key.substr(1, 2) != dir) return single_file(Category::other, rel);
    std::string_view ext = name.substr(53);
    std::string_view group = rel.substr(0, rel.size() - name.size() + 52);  // "<xx>/c<51>"
    auto module = [&](Category c, bool sniff = false) {
        return Classification{c, GroupKind::module, key, group, sniff};
    };
    if (ext == "py") return module(Category::kernel_module, true);
    if (ext == "kernel_perf") return module(Category::kernel_perf);
    if (ext == "cpp" || ext == "main.cpp" || ext == "optimized.cpp") return module(Category::cpp_source);
    if (ext == "so" || ext == "main.so") return module(Category::cpp_library);
    if (ext == "cu") return module(Category::cuda_source);
    if (ext == "picked_kernel") return module(Category::picked_kernel);
    if (ext == "o" || ext == "main.o") return module(Category::object_file);
    if (ext.ends_with(".error")) return module(Category::compile_error);
    // AOTInductor without an output path: c<51>.wrapper.cpp/.so, .kernel.cpp, .wrapper_metadata.json, ...
    if (ext.starts_with("wrapper.") || ext.starts_with("wrapper_") || ext.starts_with("kernel.") ||
        ext.starts_with("kernel_"))
        return module(Category::aoti_artifact);
    if (ext.ends_with(".json") && ext.size() > 5) return module(Category::build_record);
    // Other outputs of the same compile (objects, fatbins) live and die with the module.
    return module(Category::other);
}

Classification classify_inductor(std::string_view rel, const std::array<std::string_view, kMax>& s, std::size_t n) {
    std::string_view top = s[0];
    if (top == "fxgraph") {
        // fxgraph/<key[1:3]>/<key>/<entry>
        if (n == 4 && s[2].size() > 3 && s[2].substr(1, 2) == s[1])
            return {Category::fxgraph, GroupKind::key_dir, s[2], prefix_through(rel, s[2]), false};
        return single_file(Category::other, rel);
    }
    if (top == "aotautograd") {
        if (n == 3) return {Category::aotautograd, GroupKind::key_dir, s[1], prefix_through(rel, s[1]), false};
        return single_file(Category::other, rel);
    }
    if (top == "triton") {
        // triton/<device index>/<HASH>/<file>; staging dirs and autotune results beside the kernels
        if (n >= 4 && !s[1].empty() && all_of(s[1], digit)) {
            if (auto c = classify_triton_extra(rel, s[2], n >= 5 ? s[3] : std::string_view(), s[n - 1], n == 4))
                return *c;
            if (n == 4)
                return {Category::triton_compiled, GroupKind::triton_kernel_dir, s[2], prefix_through(rel, s[2]),
                        false};
        }
        return single_file(Category::other, rel);
    }
    if (top == "cache" && n == 2 && is_hex64(s[1])) return single_file(Category::autotune_local_cache, rel, s[1]);
    if (top == "cache" && n >= 3)  // cache/<name>/...: the caching module's on-disk caches
        return single_file(s[n - 1] == "dir.lock" ? Category::lock : Category::caching_module, rel);
    if (n == 3 && top.size() == 2 && s[1].ends_with(".halide") && is_code_key(s[1].substr(0, 52)) && s[1].size() == 59)
        return {Category::halide, GroupKind::key_dir, s[1].substr(0, 52), prefix_through(rel, s[1]), false};
    if (top == "locks" && n == 2 && s[1].ends_with(".lock") && s[1].size() > 5)
        return single_file(Category::lock, rel, s[1].substr(0, s[1].size() - 5));
    if (n == 2 && top.size() == 2) return classify_code_file(rel, top, s[1]);
    return single_file(Category::other, rel);
}

}  // namespace

bool is_code_key(std::string_view s) { return s.size() == 52 && s[0] == 'c' && all_of(s.substr(1), lower_b32); }
bool is_triton_hash(std::string_view s) { return s.size() == 52 && all_of(s, upper_b32); }
bool is_hex64(std::string_view s) { return s.size() == 64 && all_of(s, lower_hex); }

bool is_atomic_temp_name(std::string_view name) {
    // write_atomic's ".<pid>.<thread id>.tmp"
    if (!name.starts_with(".") || !name.ends_with(".tmp")) return false;
    std::string_view mid = name.substr(1, name.size() - 5);
    auto dot = mid.find('.');
    if (dot == std::string_view::npos || dot == 0 || dot + 1 == mid.size()) return false;
    return all_of(mid.substr(0, dot), digit) && all_of(mid.substr(dot + 1), digit);
}

bool is_build_temp_name(std::string_view name) {
    // A compiler's output in flight: ".<key>.<pid>.<tid>.tmp.<ext>" (codecache::CodeCache), renamed
    // onto <key>.<ext> once the build is done.
    if (!name.starts_with(".")) return false;
    auto tmp = name.find(".tmp.");
    if (tmp == std::string_view::npos || tmp + 5 >= name.size()) return false;
    std::string_view head = name.substr(1, tmp - 1);  // <key>.<pid>.<tid>
    auto tid_dot = head.rfind('.');
    if (tid_dot == std::string_view::npos) return false;
    auto pid_dot = head.rfind('.', tid_dot - 1);
    if (pid_dot == std::string_view::npos || pid_dot == 0 || tid_dot == 0) return false;
    std::string_view pid = head.substr(pid_dot + 1, tid_dot - pid_dot - 1), tid = head.substr(tid_dot + 1);
    return !pid.empty() && !tid.empty() && all_of(pid, digit) && all_of(tid, digit);
}

Classification classify_path(std::string_view rel, RootKind kind) {
    std::array<std::string_view, kMax> s{};
    std::size_t n = split(rel, s);
    if (n == 0) return single_file(Category::other, rel);
    std::string_view name = n <= kMax ? s[n - 1] : rel.substr(rel.rfind('/') + 1);
    if (is_atomic_temp_name(name) || is_build_temp_name(name)) return single_file(Category::temp, rel);
    if (kind == RootKind::triton) {
        if (n >= 2 && n <= 3)
            if (auto c = classify_triton_extra(rel, s[0], n == 3 ? s[1] : std::string_view(), name, n == 2)) return *c;
        if (n == 2) return {Category::triton_compiled, GroupKind::triton_kernel_dir, s[0], s[0], false};
        return single_file(Category::other, rel);
    }
    // Folders of their own (dynamo/, debug output, nested roots) may nest deeper than the cache proper.
    if (auto c = classify_torch_folder(rel, s[0], n == 1 ? std::string_view() : s[1], name, n)) return *c;
    if (n > kMax) return single_file(Category::other, rel);
    return classify_inductor(rel, s, n);
}

bool python_is_output_code(std::string_view head) {
    head = head.substr(0, kPythonSniffBytes);
    for (std::string_view marker : {"def call(", "# AOT ID:", "AsyncCompile()", "'kernel_num_gb'"})
        if (head.find(marker) != std::string_view::npos) return true;
    return false;
}

}  // namespace kiln::inductor
