#include "retune/template_module.hpp"

#include <string_view>

#include "inductor/beneath_root.hpp"
#include "timings/py_literal.hpp"
#include "timings/triton_module_text.hpp"
#include "util/text_scan.hpp"

namespace kiln::retune {

namespace {

// The dict after `marker`, an empty one where the module has none.
Result<nlohmann::ordered_json> dict_after(const std::string& text, const std::string& marker, const std::string& path) {
    KILN_TRY(auto dict, timings::py_dict_after(text, marker, path));
    return dict ? std::move(*dict) : nlohmann::ordered_json::object();
}

// Each `\n[ \t]+(\w+)[ \t]*=[ \t]*(\w+)[ \t]*(?=\n)` of `body`, the first of a name kept. One line
// at a time: no part of the pattern crosses a newline.
void add_body_assignments(std::string_view body, std::map<std::string, std::string>& out) {
    using namespace scan;
    for (std::size_t nl = body.find('\n'); nl != std::string_view::npos; nl = body.find('\n', nl + 1)) {
        const std::size_t name = skip_blanks(body, nl + 1);
        const std::size_t name_end = skip_word(body, name);
        if (name == nl + 1 || name_end == name) continue;
        const std::size_t eq = skip_blanks(body, name_end);
        if (!has_at(body, eq, "=")) continue;
        const std::size_t value = skip_blanks(body, eq + 1);
        const std::size_t value_end = skip_word(body, value);
        if (value_end == value || !has_at(body, skip_blanks(body, value_end), "\n")) continue;
        out.emplace(std::string(body.substr(name, name_end - name)),
                    std::string(body.substr(value, value_end - value)));
    }
}

}  // namespace

Result<TemplateModule> parse_template_module(const std::string& text, const std::string& path) {
    TemplateModule m;
    m.path = path;
    if (text.find("@triton_heuristics.template") == std::string::npos)
        return make_error(Errc::unsupported, "not a Triton template module (no @triton_heuristics.template)", path);
    auto jit = timings::find_jit_kernel(text);
    if (!jit) return make_error(Errc::parse, "no @triton.jit kernel", path);
    m.kernel = jit->name;
    KILN_TRY(auto sig, dict_after(text, "'signature':", path));
    for (auto it = sig.begin(); it != sig.end(); ++it) {
        std::string type = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
        if (type.rfind("tensordesc", 0) == 0) m.tensor_descriptors = true;
        m.signature.emplace_back(it.key(), type);
    }
    if (m.signature.empty()) return make_error(Errc::parse, "triton_meta has no signature", path);
    KILN_TRY(auto constants, dict_after(text, "'constants':", path));
    for (auto it = constants.begin(); it != constants.end(); ++it) m.constants.push_back(it.key());
    KILN_TRY(m.config, dict_after(text, "'config_args':", path));
    // The decorator's own launch arguments (the text before @triton.jit).
    const std::string_view head = std::string_view(text).substr(0, text.find("@triton.jit"));
    for (auto& [name, value] : timings::launch_arguments(head)) m.config[name] = value;
    if (text.find("make_tensor_descriptor") != std::string::npos || text.find("tensormap_create") != std::string::npos)
        m.tensor_descriptors = true;
    // The kernel body's simple assignments: `    M = ks0`, `    stride_am = 512`.
    add_body_assignments(std::string_view(text).substr(jit->at), m.assignments);
    return m;
}

Result<TemplateModule> read_template_module(const inductor::OpenedRoot& root, std::string_view rel) {
    KILN_TRY(std::string text, inductor::read_beneath(root, rel, 16u << 20));
    return parse_template_module(text, inductor::path_beneath(root, rel));
}

}  // namespace kiln::retune
