#include "util/json_in.hpp"

#include <cctype>
#include <string>

namespace kiln {

namespace {

// parse_json_bytes marks an escaped byte XX as NUL + "XX" (two hex digits) in the parsed strings,
// and a real NUL (\u0000) as NUL NUL: no other string holds a NUL, so the marks are unambiguous.
std::string unmark(const std::string& s) {
    if (s.find('\0') == std::string::npos) return s;
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\0' || i + 1 >= s.size()) {
            out += s[i];
            continue;
        }
        if (s[i + 1] == '\0') {
            out += '\0';
            ++i;
        } else if (i + 2 < s.size()) {
            out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
            i += 2;
        }
    }
    return out;
}

nlohmann::json unmark_all(const nlohmann::json& j) {
    if (j.is_string()) return unmark(j.get_ref<const std::string&>());
    if (j.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& v : j) out.push_back(unmark_all(v));
        return out;
    }
    if (j.is_object()) {
        nlohmann::json out = nlohmann::json::object();
        for (auto it = j.begin(); it != j.end(); ++it) out[unmark(it.key())] = unmark_all(it.value());
        return out;
    }
    return j;
}

bool hex_at(std::string_view t, std::size_t i, std::size_t n) {
    if (i + n > t.size()) return false;
    for (std::size_t k = i; k < i + n; ++k)
        if (!std::isxdigit(static_cast<unsigned char>(t[k]))) return false;
    return true;
}

}  // namespace

nlohmann::json parse_json_bytes(std::string_view text) {
    std::string marked;
    marked.reserve(text.size());
    bool in_string = false, marks = false, high_before = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (!in_string) {
            in_string = c == '"';
            marked += c;
            continue;
        }
        if (c == '"') {
            in_string = false;
            high_before = false;
            marked += c;
            continue;
        }
        if (c != '\\' || i + 1 >= text.size()) {
            high_before = false;
            marked += c;
            continue;
        }
        char e = text[i + 1];
        if (e == 'u' && hex_at(text, i + 2, 4)) {
            std::string hex(text.substr(i + 2, 4));
            unsigned v = static_cast<unsigned>(std::stoul(hex, nullptr, 16));
            if (v >= 0xDC80 && v <= 0xDCFF && !high_before) {  // a lone low surrogate: an escaped byte
                static const char* digits = "0123456789abcdef";
                marked += "\\u0000";
                marked += digits[(v >> 4) & 0xF];
                marked += digits[v & 0xF];
                marks = true;
            } else if (v == 0) {
                marked += "\\u0000\\u0000";
                marks = true;
            } else {
                marked.append(text.substr(i, 6));
            }
            high_before = v >= 0xD800 && v <= 0xDBFF;
            i += 5;
            continue;
        }
        high_before = false;
        marked += c;
        marked += e;
        ++i;
    }
    auto j = nlohmann::json::parse(marked, nullptr, false);
    if (j.is_discarded() || !marks) return j;
    return unmark_all(j);
}

}  // namespace kiln
