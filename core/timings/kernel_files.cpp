#include "timings/kernel_files.hpp"

#include <cmath>
#include <cstdlib>
#include <string_view>

#include "timings/py_literal.hpp"
#include "timings/text_file.hpp"
#include "timings/triton_module_text.hpp"
#include "util/path_component.hpp"
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

Result<Op> read_best_config(const fs::path& path) {
    KILN_TRY(std::string text, read_text_file(path, 1u << 20));
    auto j = nlohmann::ordered_json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return make_error(Errc::parse, "not a JSON object", path.string(), "a .best_config holds one JSON object");
    Op op;
    op.op = "best_config";
    op.source = path.string();
    Choice c;
    c.name = path.stem().string();
    c.params = std::move(j);
    c.module_path = sibling_kernel_module(path);
    if (!c.module_path.empty()) {
        if (auto info = read_kernel_module_info(c.module_path); info.ok()) op.inputs = info->kernel_name;
    }
    op.choices.push_back(std::move(c));
    // The config Inductor settled on: no benchmark time, no choices to compare (is_per_kernel_config).
    return op;
}

Result<Op> read_kernel_perf(const fs::path& path) {
    KILN_TRY(std::string text, read_text_file(path, 4096));
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
    c.module_path = sibling_kernel_module(path);
    if (!c.module_path.empty()) {
        if (auto info = read_kernel_module_info(c.module_path); info.ok()) {
            op.inputs = info->kernel_name;
            c.params = info->params;
        }
    }
    op.choices.push_back(std::move(c));
    pick_best(op);
    return op;
}

}  // namespace kiln::timings
