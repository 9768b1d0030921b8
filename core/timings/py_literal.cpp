#include "timings/py_literal.hpp"

#include <cctype>
#include <charconv>

#include "util/text_scan.hpp"

namespace kiln::timings {

std::string trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return std::string(s.substr(b, e - b));
}

std::vector<std::string> split_top_level(std::string_view text, char sep) {
    std::vector<std::string> parts;
    int depth = 0;
    char quote = 0;
    size_t start = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (quote) {
            if (c == '\\') ++i;
            else if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '(' || c == '[' || c == '{') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
            --depth;
        } else if (c == sep && depth == 0) {
            parts.push_back(trim(text.substr(start, i - start)));
            start = i + 1;
        }
    }
    std::string last = trim(text.substr(start));
    if (!last.empty() || !parts.empty()) parts.push_back(std::move(last));
    return parts;
}

nlohmann::ordered_json py_scalar(std::string_view raw) {
    std::string t = trim(raw);
    if (t == "True") return true;
    if (t == "False") return false;
    if (t == "None") return nullptr;
    if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front())
        return t.substr(1, t.size() - 2);
    const char* b = t.data();
    const char* e = t.data() + t.size();
    long long i = 0;
    auto ri = std::from_chars(b, e, i);
    if (ri.ec == std::errc() && ri.ptr == e && !t.empty()) return i;
    double d = 0;
    auto rd = std::from_chars(b, e, d);
    if (rd.ec == std::errc() && rd.ptr == e && !t.empty()) return d;
    return t;  // a symbol or expression: shown as written
}

nlohmann::ordered_json py_kwargs(std::string_view text) {
    auto out = nlohmann::ordered_json::object();
    for (const auto& part : split_top_level(text, ',')) {
        auto eq = part.find('=');
        if (eq == std::string::npos || part.empty()) continue;
        out[trim(std::string_view(part).substr(0, eq))] = py_scalar(std::string_view(part).substr(eq + 1));
    }
    return out;
}

Result<nlohmann::ordered_json> py_flat_dict(std::string_view text) {
    std::string t = trim(text);
    if (t.size() < 2 || t.front() != '{' || t.back() != '}')
        return make_error(Errc::parse, "not a dict literal", t.substr(0, 40));
    auto out = nlohmann::ordered_json::object();
    for (const auto& item : split_top_level(std::string_view(t).substr(1, t.size() - 2), ',')) {
        if (item.empty()) continue;
        auto parts = split_top_level(item, ':');
        if (parts.size() != 2) return make_error(Errc::parse, "dict item is not key: value", item);
        auto key = py_scalar(parts[0]);
        out[key.is_string() ? key.get<std::string>() : parts[0]] = py_scalar(parts[1]);
    }
    return out;
}

Result<std::optional<nlohmann::ordered_json>> py_dict_after(std::string_view text, std::string_view marker,
                                                            const std::string& context) {
    const std::size_t at = text.find(marker);
    if (at == std::string_view::npos) return std::optional<nlohmann::ordered_json>();
    const std::size_t open = text.find('{', at + marker.size());
    if (open == std::string_view::npos) return make_error(Errc::parse, "no dict after " + std::string(marker), context);
    const std::string_view body = scan::balanced_braces(text, open);
    if (body.empty()) return make_error(Errc::parse, "unbalanced dict after " + std::string(marker), context);
    KILN_TRY(auto dict, py_flat_dict(body));
    return std::optional<nlohmann::ordered_json>(std::move(dict));
}

static std::string unquote(const std::string& s) {
    if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front())
        return s.substr(1, s.size() - 2);
    return s;
}

Result<std::vector<TensorKey>> parse_inputs_key(std::string_view key) {
    std::string t = trim(key);
    if (t.size() < 2 || t.front() != '[' || t.back() != ']')
        return make_error(Errc::parse, "inputs key is not a list repr", t.substr(0, 60));
    std::vector<TensorKey> out;
    for (const auto& tuple : split_top_level(std::string_view(t).substr(1, t.size() - 2), ',')) {
        if (tuple.size() < 2 || tuple.front() != '(' || tuple.back() != ')')
            return make_error(Errc::parse, "inputs key item is not a tuple", tuple);
        auto f = split_top_level(std::string_view(tuple).substr(1, tuple.size() - 2), ',');
        if (!f.empty() && f.back().empty()) f.pop_back();  // "(x,)" one-tuples
        // (device, dtype, sizes..., strides..., offset): 2n + 3 fields for an n-dim tensor.
        if (f.size() < 3 || (f.size() - 3) % 2 != 0)
            return make_error(Errc::parse, "inputs key tuple has " + std::to_string(f.size()) + " fields", tuple,
                              "expected (device, dtype, sizes..., strides..., offset)");
        TensorKey k;
        k.device = unquote(f[0]);
        k.dtype = unquote(f[1]);
        if (k.dtype.rfind("torch.", 0) == 0) k.dtype = k.dtype.substr(6);
        size_t n = (f.size() - 3) / 2;
        k.sizes.assign(f.begin() + 2, f.begin() + 2 + n);
        k.strides.assign(f.begin() + 2 + n, f.begin() + 2 + 2 * n);
        k.offset = f.back();
        out.push_back(std::move(k));
    }
    return out;
}

}  // namespace kiln::timings
