#include "util/json_out.hpp"

#include <cstdint>

#include "util/utf8.hpp"

namespace kiln {

namespace {

void append_hex4(std::string& out, unsigned v) {
    static const char* digits = "0123456789abcdef";
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += digits[(v >> shift) & 0xF];
}

template <class Json>
void write(std::string& out, const Json& j, int indent, int level) {
    auto newline = [&](int lvl) {
        if (indent < 0) return;
        out += '\n';
        out.append(static_cast<std::size_t>(indent * lvl), ' ');
    };
    switch (j.type()) {
        case nlohmann::json::value_t::object: {
            if (j.empty()) {
                out += "{}";
                return;
            }
            out += '{';
            bool first = true;
            for (auto it = j.begin(); it != j.end(); ++it) {
                if (!first) out += ',';
                first = false;
                newline(level + 1);
                append_json_string(out, it.key());
                out += indent < 0 ? ":" : ": ";
                write(out, it.value(), indent, level + 1);
            }
            newline(level);
            out += '}';
            return;
        }
        case nlohmann::json::value_t::array: {
            if (j.empty()) {
                out += "[]";
                return;
            }
            out += '[';
            bool first = true;
            for (const auto& v : j) {
                if (!first) out += ',';
                first = false;
                newline(level + 1);
                write(out, v, indent, level + 1);
            }
            newline(level);
            out += ']';
            return;
        }
        case nlohmann::json::value_t::string: append_json_string(out, j.template get_ref<const std::string&>()); return;
        default:
            out += j.dump();  // numbers, booleans, null, binary: never strings, never throws
            return;
    }
}

}  // namespace

bool is_valid_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        std::size_t n = utf8_sequence(s, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            std::size_t n = utf8_sequence(s, i);
            if (n == 0) {
                append_hex4(out, 0xDC00u + c);  // surrogateescape
                ++i;
            } else {
                out.append(s.substr(i, n));
                i += n;
            }
            continue;
        }
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) append_hex4(out, c);
                else out += static_cast<char>(c);
        }
        ++i;
    }
    out += '"';
}

std::string dump_json(const nlohmann::ordered_json& j, int indent) {
    std::string out;
    write(out, j, indent, 0);
    return out;
}

std::string dump_json(const nlohmann::json& j, int indent) {
    std::string out;
    write(out, j, indent, 0);
    return out;
}

}  // namespace kiln
