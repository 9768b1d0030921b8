#include "util/json_get.hpp"

#include <algorithm>
#include <cctype>

#include "util/python_json.hpp"

namespace kiln::json_get {
namespace {

constexpr std::size_t kShownChars = 40;  // of a string or key in a message

bool plain_name(std::string_view s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

// A key or string as JSON text (ASCII, escaped as Python would), cut to kShownChars bytes at a
// character's start: an inputs key runs to 200.
std::string json_text_cut(std::string_view s) {
    std::size_t n = std::min(s.size(), kShownChars);
    while (n < s.size() && n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    std::string out = py_dumps(nlohmann::ordered_json(std::string(s.substr(0, n))));
    if (n < s.size()) out.insert(out.size() - 1, "...");
    return out;
}

}  // namespace

JsonAt JsonAt::key(std::string_view name) const {
    if (plain_name(name)) return {origin, path.empty() ? std::string(name) : path + "." + std::string(name)};
    return {origin, path + "[" + json_text_cut(name) + "]"};
}

JsonAt JsonAt::index(std::size_t i) const { return {origin, path + "[" + std::to_string(i) + "]"}; }

std::string JsonAt::where() const { return path.empty() ? "the top level" : path; }

Error error_at(const JsonAt& at, const std::string& what) {
    return make_error(Errc::parse, at.where() + " " + what, at.origin);
}

std::string describe_number(double v) {
    if (std::isnan(v)) return "NaN";
    return py_float_repr(v);
}

std::string describe_string(const std::string& s) { return json_text_cut(s) + " (a string)"; }

namespace detail {
std::string range_text(std::int64_t lo, std::int64_t hi) {
    return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}
}  // namespace detail

}  // namespace kiln::json_get
