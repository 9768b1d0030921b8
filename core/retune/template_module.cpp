#include "retune/template_module.hpp"

#include <regex>

#include "timings/py_literal.hpp"
#include "timings/text_file.hpp"

namespace kiln::retune {

namespace {

// The balanced {...} at text[open] (a '{'), quotes respected; "" if unbalanced.
std::string braces_at(const std::string& text, std::size_t open) {
    int depth = 0;
    char quote = 0;
    for (std::size_t i = open; i < text.size(); ++i) {
        char c = text[i];
        if (quote) {
            if (c == '\\') ++i;
            else if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') quote = c;
        else if (c == '{') ++depth;
        else if (c == '}' && --depth == 0) return text.substr(open, i - open + 1);
    }
    return {};
}

Result<nlohmann::ordered_json> dict_after(const std::string& text, const std::string& marker, const std::string& path) {
    auto at = text.find(marker);
    if (at == std::string::npos) return nlohmann::ordered_json::object();
    auto open = text.find('{', at + marker.size());
    if (open == std::string::npos) return make_error(Errc::parse, "no dict after " + marker, path);
    std::string body = braces_at(text, open);
    if (body.empty()) return make_error(Errc::parse, "unbalanced dict after " + marker, path);
    return timings::py_flat_dict(body);
}

}  // namespace

Result<TemplateModule> parse_template_module(const std::string& text, const std::string& path) {
    TemplateModule m;
    m.path = path;
    if (text.find("@triton_heuristics.template") == std::string::npos)
        return make_error(Errc::unsupported, "not a Triton template module (no @triton_heuristics.template)", path);
    std::smatch sm;
    static const std::regex def(R"(@triton\.jit\s*\ndef\s+(\w+)\s*\()");
    if (!std::regex_search(text, sm, def)) return make_error(Errc::parse, "no @triton.jit kernel", path);
    m.kernel = sm[1];
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
    const std::string head = text.substr(0, text.find("@triton.jit"));
    static const std::regex launch(R"(\n\s*(num_stages|num_warps)\s*=\s*(\d+)\s*,)");
    for (auto it = std::sregex_iterator(head.begin(), head.end(), launch); it != std::sregex_iterator(); ++it)
        m.config[(*it)[1].str()] = std::stoll((*it)[2].str());
    if (text.find("make_tensor_descriptor") != std::string::npos || text.find("tensormap_create") != std::string::npos)
        m.tensor_descriptors = true;
    // The kernel body's simple assignments: `    M = ks0`, `    stride_am = 512`.
    std::string body = text.substr(static_cast<std::size_t>(sm.position(0)));
    static const std::regex assign(R"(\n[ \t]+(\w+)[ \t]*=[ \t]*(\w+)[ \t]*(?=\n))");
    for (auto it = std::sregex_iterator(body.begin(), body.end(), assign); it != std::sregex_iterator(); ++it)
        m.assignments.emplace((*it)[1].str(), (*it)[2].str());
    return m;
}

Result<TemplateModule> read_template_module(const std::filesystem::path& path) {
    KILN_TRY(std::string text, timings::read_text_file(path, 16u << 20));
    return parse_template_module(text, path.string());
}

}  // namespace kiln::retune
