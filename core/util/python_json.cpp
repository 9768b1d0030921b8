#include "util/python_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace kiln {
namespace {

// Python's json.dumps with ensure_ascii=True: non-ASCII as \uXXXX (surrogate pairs above the BMP).
void append_string(std::string& out, const std::string& s) {
    out += '"';
    for (size_t i = 0; i < s.size();) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        auto hex4 = [&](unsigned v) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", v);
            out += buf;
        };
        if (c < 0x80) {
            switch (c) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\n': out += "\\n"; break;
                case '\r': out += "\\r"; break;
                case '\t': out += "\\t"; break;
                case '\b': out += "\\b"; break;
                case '\f': out += "\\f"; break;
                default:
                    if (c < 0x20) hex4(c);
                    else out += static_cast<char>(c);
            }
            ++i;
            continue;
        }
        // Decode one UTF-8 sequence (nlohmann has validated it on parse).
        int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        unsigned cp = c & (len == 4 ? 0x07 : len == 3 ? 0x0F : 0x1F);
        for (int k = 1; k < len && i + k < s.size(); ++k)
            cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        i += len;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            hex4(0xD800 + (cp >> 10));
            hex4(0xDC00 + (cp & 0x3FF));
        } else {
            hex4(cp);
        }
    }
    out += '"';
}

void dump(std::string& out, const nlohmann::ordered_json& v, const PyDumpOptions& o, int depth) {
    const bool pretty = o.indent >= 0;
    auto newline = [&](int d) {
        out += '\n';
        out.append(static_cast<size_t>(o.indent * d), ' ');
    };
    switch (v.type()) {
        case nlohmann::json::value_t::null: out += "null"; return;
        case nlohmann::json::value_t::boolean: out += v.get<bool>() ? "true" : "false"; return;
        case nlohmann::json::value_t::number_integer: out += std::to_string(v.get<std::int64_t>()); return;
        case nlohmann::json::value_t::number_unsigned: out += std::to_string(v.get<std::uint64_t>()); return;
        case nlohmann::json::value_t::number_float: out += py_float_repr(v.get<double>()); return;
        case nlohmann::json::value_t::string: append_string(out, v.get_ref<const std::string&>()); return;
        case nlohmann::json::value_t::array: {
            if (v.empty()) {
                out += "[]";
                return;
            }
            out += '[';
            bool first = true;
            for (const auto& e : v) {
                if (!first) out += pretty ? "," : ", ";
                first = false;
                if (pretty) newline(depth + 1);
                dump(out, e, o, depth + 1);
            }
            if (pretty) newline(depth);
            out += ']';
            return;
        }
        case nlohmann::json::value_t::object: {
            if (v.empty()) {
                out += "{}";
                return;
            }
            std::vector<std::pair<std::string, const nlohmann::ordered_json*>> items;
            for (auto it = v.begin(); it != v.end(); ++it) items.emplace_back(it.key(), &it.value());
            // Python sorts str keys by code point; UTF-8 byte order is the same order.
            if (o.sort_keys)
                std::stable_sort(items.begin(), items.end(), [](auto& a, auto& b) { return a.first < b.first; });
            out += '{';
            bool first = true;
            for (auto& [k, e] : items) {
                if (!first) out += pretty ? "," : ", ";
                first = false;
                if (pretty) newline(depth + 1);
                append_string(out, k);
                out += ": ";
                dump(out, *e, o, depth + 1);
            }
            if (pretty) newline(depth);
            out += '}';
            return;
        }
        default: out += "null"; return;
    }
}

}  // namespace

std::string py_float_repr(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    // Shortest round-trip digits, then Python's layout: fixed for 1e-4 <= |v| < 1e16, else
    // exponent with at least two digits ("1e-05", "1e+16"); fixed always shows ".0" for integers.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    auto epos = sci.find('e');
    std::string mant = sci.substr(0, epos);
    int exp = std::stoi(sci.substr(epos + 1));
    bool neg = !mant.empty() && mant[0] == '-';
    if (neg) mant.erase(0, 1);
    std::string digits;
    for (char c : mant)
        if (c != '.') digits += c;
    std::string out = neg ? "-" : "";
    if (exp >= -4 && exp < 16) {  // repr's rule: scientific below 1e-4 and from 1e16
        if (exp >= 0) {
            if (static_cast<int>(digits.size()) <= exp + 1) {
                out += digits + std::string(static_cast<size_t>(exp + 1 - static_cast<int>(digits.size())), '0') + ".0";
            } else {
                out +=
                    digits.substr(0, static_cast<size_t>(exp + 1)) + "." + digits.substr(static_cast<size_t>(exp + 1));
            }
        } else {
            out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
        }
        return out;
    }
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    return out + ebuf;
}

std::string py_dumps(const nlohmann::ordered_json& value, const PyDumpOptions& options) {
    std::string out;
    dump(out, value, options, 0);
    return out;
}

namespace {
constexpr const char* kPosInf = "\\u0001kiln:+inf";  // JSON text of the marker strings
constexpr const char* kNegInf = "\\u0001kiln:-inf";
constexpr const char* kNaN = "\\u0001kiln:nan";

// Builds the value as nlohmann's DOM parser would, except that an object key is appended, not
// looked up: ordered_json's operator[] is a linear search, so nlohmann's own parse is quadratic in
// an object's keys (a timing cache with 150k inputs keys under one op took minutes). Duplicate keys
// are resolved once per object at its end, as operator[] would (the first place, the last value;
// Python's dict does the same). Marker strings become the special floats here, in the same pass.
class PyJsonBuilder {
public:
    using J = nlohmann::ordered_json;
    explicit PyJsonBuilder(J& root) : root_(root) {}

    bool null() { return put(J(nullptr)) != nullptr; }
    bool boolean(bool v) { return put(J(v)) != nullptr; }
    bool number_integer(J::number_integer_t v) { return put(J(v)) != nullptr; }
    bool number_unsigned(J::number_unsigned_t v) { return put(J(v)) != nullptr; }
    bool number_float(J::number_float_t v, const std::string&) { return put(J(v)) != nullptr; }
    bool string(std::string& v) {
        if (v == "\x01kiln:+inf") return put(J(std::numeric_limits<double>::infinity())) != nullptr;
        if (v == "\x01kiln:-inf") return put(J(-std::numeric_limits<double>::infinity())) != nullptr;
        if (v == "\x01kiln:nan") return put(J(std::numeric_limits<double>::quiet_NaN())) != nullptr;
        return put(J(std::move(v))) != nullptr;
    }
    bool binary(J::binary_t& v) { return put(J::binary(std::move(v))) != nullptr; }
    bool start_object(std::size_t) {
        stack_.push_back(put(J::object()));
        return true;
    }
    bool key(std::string& k) {
        auto& pairs = static_cast<J::object_t::Container&>(*stack_.back()->get_ptr<J::object_t*>());
        ++work_.keys;
        pairs.emplace_back(std::move(k), J());
        next_ = &pairs.back().second;
        return true;
    }
    bool end_object() {
        drop_duplicate_keys(*stack_.back()->get_ptr<J::object_t*>());
        stack_.pop_back();
        return true;
    }
    bool start_array(std::size_t) {
        stack_.push_back(put(J::array()));
        return true;
    }
    bool end_array() {
        stack_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) {
        error_ = e.what();
        return false;
    }
    const std::string& error() const { return error_; }
    const PyLoadsWork& work() const { return work_; }

private:
    J* put(J&& v) {
        if (stack_.empty()) {
            root_ = std::move(v);
            return &root_;
        }
        J& top = *stack_.back();
        if (top.is_array()) {
            auto& items = *top.get_ptr<J::array_t*>();
            items.push_back(std::move(v));
            return &items.back();
        }
        *next_ = std::move(v);
        return next_;
    }

    void drop_duplicate_keys(J::object_t& object) {
        auto& pairs = static_cast<J::object_t::Container&>(object);
        if (pairs.size() < 2) return;
        std::vector<std::size_t> order(pairs.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        auto& compared = work_.key_comparisons;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            ++compared;
            return pairs[a].first < pairs[b].first;
        });
        auto same = [&](std::size_t a, std::size_t b) {
            ++compared;
            return pairs[a].first == pairs[b].first;
        };
        std::vector<bool> drop(pairs.size(), false);
        bool any = false;
        for (std::size_t i = 0; i + 1 < order.size();) {
            std::size_t end = i + 1;
            while (end < order.size() && same(order[end], order[i])) drop[order[end++]] = true;
            if (end > i + 1) {
                pairs[order[i]].second = std::move(pairs[order[end - 1]].second);
                any = true;
            }
            i = end;
        }
        if (!any) return;
        J::object_t::Container kept;
        kept.reserve(pairs.size());
        for (std::size_t i = 0; i < pairs.size(); ++i)
            if (!drop[i]) kept.emplace_back(pairs[i].first, std::move(pairs[i].second));
        pairs = std::move(kept);
    }

    J& root_;
    std::vector<J*> stack_;
    J* next_ = nullptr;
    std::string error_;
    PyLoadsWork work_;
};

Error too_deep(const std::string& context) {
    return make_error(Errc::parse, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels", context,
                      "no file Inductor or Kiln writes nests like this: the file is corrupt or hostile; remove it");
}

void append_marker(std::string& out, const char* marker) {
    out += '"';
    out += marker;
    out += '"';
}
}  // namespace

Result<nlohmann::ordered_json> py_loads(std::string_view text, const std::string& context, PyLoadsWork* work) {
    // JSON has no spelling for Python's special floats: swap them (outside strings) for marker
    // strings, parse, then put the doubles back (NaN stays NaN: py_dumps writes it back as NaN,
    // which Inductor reads; null would break its min()). The same pass measures the nesting, so
    // that neither the walks here nor any later one recurses without a bound.
    std::string fixed;
    fixed.reserve(text.size());
    bool in_string = false;
    int depth = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            fixed += c;
            if (c == '\\' && i + 1 < text.size()) fixed += text[++i];
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            fixed += c;
            continue;
        }
        if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth) return too_deep(context);
        } else if (c == ']' || c == '}') {
            --depth;
        }
        if (text.substr(i, 9) == "-Infinity") {
            append_marker(fixed, kNegInf);
            i += 8;
            continue;
        }
        if (text.substr(i, 8) == "Infinity") {
            append_marker(fixed, kPosInf);
            i += 7;
            continue;
        }
        if (text.substr(i, 3) == "NaN") {
            append_marker(fixed, kNaN);
            i += 2;
            continue;
        }
        fixed += c;
    }
    nlohmann::ordered_json v;
    PyJsonBuilder builder(v);
    const bool parsed = nlohmann::ordered_json::sax_parse(fixed, &builder);
    if (work) *work = builder.work();
    if (!parsed) return make_error(Errc::parse, "invalid JSON: " + builder.error(), context);
    return v;
}

int json_nesting_depth(std::string_view text) {
    int depth = 0, deepest = 0;
    for_each_json_bracket(text, 0, [&](std::size_t, char c) {
        if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
        else --depth;
        return true;
    });
    return deepest;
}

std::string_view json_object_at(std::string_view text, std::size_t open) {
    int depth = 0;
    std::string_view object;
    for_each_json_bracket(text, open, [&](std::size_t i, char c) {
        if (c == '{') ++depth;
        else if (c == '}' && --depth == 0) object = text.substr(open, i - open + 1);
        return object.empty();
    });
    return object;
}

Status check_json_depth(std::string_view text, const std::string& context) {
    if (json_nesting_depth(text) > kMaxJsonDepth) return too_deep(context);
    return ok_status();
}

}  // namespace kiln
