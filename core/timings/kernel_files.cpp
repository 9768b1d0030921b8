#include "timings/kernel_files.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <vector>

#include "inductor/beneath_root.hpp"
#include "timings/py_literal.hpp"
#include "timings/text_file.hpp"
#include "timings/triton_module_text.hpp"
#include "util/path_component.hpp"
#include "util/rel_path.hpp"
#include "util/text_scan.hpp"

namespace fs = std::filesystem;

namespace kiln::timings {
namespace {

// The dict after `marker`; null where there is none or it does not read.
nlohmann::ordered_json dict_after(const std::string& text, const std::string& marker) {
    auto dict = py_dict_after(text, marker);
    return dict.ok() && *dict ? std::move(**dict) : nlohmann::ordered_json(nullptr);
}

// `@triton_heuristics\.(\w+)\(`: the decorator's name ("template", "pointwise", ...), "" if none.
std::string_view heuristics_decorator(std::string_view text) {
    constexpr std::string_view marker = "@triton_heuristics.";
    for (std::size_t at = text.find(marker); at != std::string_view::npos; at = text.find(marker, at + 1)) {
        const std::size_t name = at + marker.size();
        const std::size_t end = scan::skip_word(text, name);
        if (end > name && scan::has_at(text, end, "(")) return text.substr(name, end - name);
    }
    return {};
}

}  // namespace

Result<KernelModuleInfo> parse_kernel_module_info(const std::string& text, const std::string& path) {
    KernelModuleInfo info;
    info.path = path;
    info.heuristic = heuristics_decorator(text);
    if (info.heuristic.empty())
        return make_error(Errc::parse, "no @triton_heuristics decorator", path, "not a Triton kernel module");
    if (auto jit = find_jit_kernel(text)) info.kernel_name = jit->name;
    auto meta_name = scan::quoted_after(text, "'kernel_name':");
    if (meta_name && meta_name->find("Placeholder") == std::string_view::npos) info.kernel_name = *meta_name;

    // Templates (mm, conv...) carry their tile in config_args and the launch in the decorator.
    auto args = dict_after(text, "'config_args':");
    if (args.is_object()) info.params = std::move(args);
    // Only the decorator's own arguments: the module's benchmark harness may mention warps too.
    const std::string_view head = std::string_view(text).substr(0, text.find("@triton.jit"));
    for (auto& [name, value] : launch_arguments(head)) info.params[name] = value;
    auto hints = dict_after(text, "size_hints=");
    if (hints.is_object()) info.params["size_hints"] = std::move(hints);
    return info;
}

Result<KernelModuleInfo> read_kernel_module_info(const fs::path& module) {
    KILN_TRY(std::string text, read_text_file(module, 16u << 20));
    return parse_kernel_module_info(text, module.string());
}

std::string kernel_module_for_key(const fs::path& root, const std::string& key) {
    if (key.size() != 52 || key[0] != 'c' || !is_plain_file_name(key)) return {};  // a key from a file: no path
    fs::path p = root / key.substr(1, 2) / (key + ".py");
    std::error_code ec;
    return fs::is_regular_file(p, ec) ? p.string() : std::string{};
}

std::string sibling_kernel_module(const fs::path& file) {
    std::error_code ec;
    fs::path same_stem = file;
    same_stem.replace_extension(".py");
    if (fs::is_regular_file(same_stem, ec)) return same_stem.string();
    std::string only;
    for (const auto& e : fs::directory_iterator(file.parent_path(), ec)) {
        if (e.path().extension() != ".py") continue;
        if (!only.empty()) return {};  // ambiguous: several modules share the folder
        only = e.path().string();
    }
    return only;
}

namespace {

// A per-kernel file's module, found and read by `find` (its path, "" for none) and `read`.
struct SiblingModule {
    std::string path;
    std::optional<KernelModuleInfo> info;
};

Result<Op> best_config_op(const std::string& text, const fs::path& path, SiblingModule module) {
    auto j = nlohmann::ordered_json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return make_error(Errc::parse, "not a JSON object", path.string(), "a .best_config holds one JSON object");
    Op op;
    op.op = "best_config";
    op.source = path.string();
    Choice c;
    c.name = path.stem().string();
    c.params = std::move(j);
    c.module_path = std::move(module.path);
    if (module.info) op.inputs = module.info->kernel_name;
    op.choices.push_back(std::move(c));
    // The config Inductor settled on: no benchmark time, no choices to compare (is_per_kernel_config).
    return op;
}

Result<Op> kernel_perf_op(const std::string& text, const fs::path& path, SiblingModule module) {
    std::string t = trim(text);
    char* end = nullptr;
    double ms = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(ms))
        return make_error(Errc::parse, "not a number: '" + t.substr(0, 40) + "'", path.string(),
                          "a .kernel_perf holds one float (ms)");
    Op op;
    op.op = "kernel_perf";
    op.source = path.string();
    Choice c;
    c.name = path.stem().string();
    c.ms = ms;
    c.module_path = std::move(module.path);
    if (module.info) {
        op.inputs = module.info->kernel_name;
        c.params = module.info->params;
    }
    op.choices.push_back(std::move(c));
    pick_best(op);
    return op;
}

SiblingModule sibling_by_path(const fs::path& file) {
    SiblingModule m{sibling_kernel_module(file), std::nullopt};
    if (!m.path.empty())
        if (auto info = read_kernel_module_info(m.path); info.ok()) m.info = std::move(*info);
    return m;
}

// sibling_kernel_module beneath an opened root: same stem, else the only module in its folder.
SiblingModule sibling_beneath(const inductor::OpenedRoot& root, std::string_view rel) {
    const std::string dir(rel_dir(rel));
    std::string stem(rel.substr(dir.empty() ? 0 : dir.size() + 1));
    stem = stem.substr(0, stem.rfind('.'));
    std::string found = (dir.empty() ? "" : dir + "/") + stem + ".py";
    if (!inductor::is_regular_beneath(root, found)) {
        found.clear();
        auto listed = inductor::list_beneath(root, dir);
        for (const auto& e : listed ? *listed : std::vector<inductor::EntryBeneath>{}) {
            if (fs::path(e.name).extension() != ".py") continue;
            if (!found.empty()) return {};  // ambiguous: several modules share the folder
            found = (dir.empty() ? "" : dir + "/") + e.name;
        }
    }
    if (found.empty()) return {};
    SiblingModule m{inductor::path_beneath(root, found), std::nullopt};
    if (auto info = read_kernel_module_info(root, found); info.ok()) m.info = std::move(*info);
    return m;
}

}  // namespace

Result<Op> read_best_config(const fs::path& path) {
    KILN_TRY(std::string text, read_text_file(path, 1u << 20));
    return best_config_op(text, path, sibling_by_path(path));
}

Result<Op> read_kernel_perf(const fs::path& path) {
    KILN_TRY(std::string text, read_text_file(path, 4096));
    return kernel_perf_op(text, path, sibling_by_path(path));
}

Result<Op> read_best_config(const inductor::OpenedRoot& root, std::string_view rel) {
    KILN_TRY(std::string text, inductor::read_beneath(root, rel, 1u << 20));
    return best_config_op(text, inductor::path_beneath(root, rel), sibling_beneath(root, rel));
}

Result<Op> read_kernel_perf(const inductor::OpenedRoot& root, std::string_view rel) {
    KILN_TRY(std::string text, inductor::read_beneath(root, rel, 4096));
    return kernel_perf_op(text, inductor::path_beneath(root, rel), sibling_beneath(root, rel));
}

std::string kernel_module_rel_for_key(const inductor::OpenedRoot& root, const std::string& key,
                                      const std::string& prefix) {
    if (key.size() != 52 || key[0] != 'c' || !is_plain_file_name(key)) return {};  // a key from a file: no path
    std::string rel = (prefix.empty() ? "" : prefix + "/") + key.substr(1, 2) + "/" + key + ".py";
    return inductor::is_regular_beneath(root, rel) ? rel : std::string{};
}

Result<KernelModuleInfo> read_kernel_module_info(const inductor::OpenedRoot& root, std::string_view rel) {
    KILN_TRY(std::string text, inductor::read_beneath(root, rel, 16u << 20));
    return parse_kernel_module_info(text, inductor::path_beneath(root, rel));
}

}  // namespace kiln::timings
