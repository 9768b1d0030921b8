#pragma once
// The one checked way to read a typed value of JSON that came from an input (a timing cache, Triton's
// kernel metadata, a saved re-tune, a fleet value in Redis, a session log). nlohmann's get<T>() and
// value() throw type_error on a wrong type (`"num_warps": "8"`), and silently convert a number that
// does not fit (a 23-digit number is a double; casting it to int is undefined): one poisoned field
// then ended the whole run as an "internal error". Here every such read is a Result: an Errc::parse
// error whose message says where the value is (`ops[0].choices[3].num_warps`) and what it is, with
// the input (a file path, a Redis key) as context, so a reader drops that one item and keeps the rest.
// Times are checked as well: a time is finite and not negative, and Infinity is accepted only where
// the caller says it means "this choice failed" (Inductor's timing cache writes it so).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "util/result.hpp"

namespace kiln::json_get {

// Where a value is: the input that holds it and the path inside it, grown as a reader descends.
struct JsonAt {
    std::string origin;  // a file path, a Redis key, "kiln-cli retune"
    std::string path;    // `ops[0].choices[3]`; empty at the top

    JsonAt key(std::string_view name) const;  // `path.name`, or `path["a key"]` when not a plain name
    JsonAt index(std::size_t i) const;        // `path[i]`
    std::string where() const;                // the path, "the top level" when empty
};

// A value in a message: `"8"` (a string, cut at 40 characters), `1.2345678901234568e+22`, `true`,
// `null`, `an object`, `a list`.
template <class J>
std::string describe(const J& v);

// An Errc::parse error at `at`: "<path>: <what>", the origin as context.
Error error_at(const JsonAt& at, const std::string& what);

enum class Time {
    finite,           // a measured time: finite, >= 0
    infinity_failed,  // also +Infinity, which means the choice failed (Inductor's timing cache)
};

// --- a value itself ---
template <class J>
Result<std::string> string(const J& v, const JsonAt& at);
template <class J>
Result<std::int64_t> integer(const J& v, const JsonAt& at, std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                             std::int64_t hi = std::numeric_limits<std::int64_t>::max());
template <class J>
Result<std::uint64_t> unsigned_integer(const J& v, const JsonAt& at,
                                       std::uint64_t hi = std::numeric_limits<std::uint64_t>::max());
template <class J>
Result<bool> boolean(const J& v, const JsonAt& at);
template <class J>
Result<double> number(const J& v, const JsonAt& at);  // any finite number
template <class J>
Result<double> time_ms(const J& v, const JsonAt& at, Time rule = Time::finite);

// --- a field of an object ---
// The field's value; nullptr when absent. An error when `obj` is not an object.
template <class J>
Result<const J*> field(const J& obj, std::string_view key, const JsonAt& at);
// Required fields: absent or null is an error ("no "name"").
template <class J>
Result<std::string> string_field(const J& obj, std::string_view key, const JsonAt& at);
template <class J>
Result<std::int64_t> integer_field(const J& obj, std::string_view key, const JsonAt& at,
                                   std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                                   std::int64_t hi = std::numeric_limits<std::int64_t>::max());
template <class J>
Result<bool> boolean_field(const J& obj, std::string_view key, const JsonAt& at);
template <class J>
Result<double> time_field(const J& obj, std::string_view key, const JsonAt& at, Time rule = Time::finite);
// Optional fields: absent or null gives the fallback; present and wrong is still an error.
template <class J>
Result<std::string> string_field_or(const J& obj, std::string_view key, const JsonAt& at, std::string fallback);
template <class J>
Result<std::int64_t> integer_field_or(const J& obj, std::string_view key, const JsonAt& at, std::int64_t fallback,
                                      std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                                      std::int64_t hi = std::numeric_limits<std::int64_t>::max());
template <class J>
Result<std::uint64_t> unsigned_field_or(const J& obj, std::string_view key, const JsonAt& at, std::uint64_t fallback,
                                        std::uint64_t hi = std::numeric_limits<std::uint64_t>::max());
template <class J>
Result<bool> boolean_field_or(const J& obj, std::string_view key, const JsonAt& at, bool fallback);
template <class J>
Result<std::optional<double>> optional_time_field(const J& obj, std::string_view key, const JsonAt& at,
                                                  Time rule = Time::finite);
template <class J>
Result<std::optional<double>> optional_number_field(const J& obj, std::string_view key, const JsonAt& at);

// ---------------------------------------------------------------------------------------------------
// Implementation (templates over nlohmann::json and nlohmann::ordered_json).

std::string describe_number(double v);
std::string describe_string(const std::string& s);

template <class J>
std::string describe(const J& v) {
    switch (v.type()) {
        case nlohmann::json::value_t::null: return "null";
        case nlohmann::json::value_t::boolean: return v.template get<bool>() ? "true" : "false";
        case nlohmann::json::value_t::number_integer: return std::to_string(v.template get<std::int64_t>());
        case nlohmann::json::value_t::number_unsigned: return std::to_string(v.template get<std::uint64_t>());
        case nlohmann::json::value_t::number_float: return describe_number(v.template get<double>());
        case nlohmann::json::value_t::string: return describe_string(v.template get_ref<const typename J::string_t&>());
        case nlohmann::json::value_t::object: return "an object";
        case nlohmann::json::value_t::array: return "a list";
        default: return "binary data";
    }
}

namespace detail {
template <class J>
Error wrong(const J& v, const JsonAt& at, const char* want) {
    return error_at(at, "is " + describe(v) + ", not " + want);
}
std::string range_text(std::int64_t lo, std::int64_t hi);
}  // namespace detail

template <class J>
Result<std::string> string(const J& v, const JsonAt& at) {
    if (!v.is_string()) return detail::wrong(v, at, "a string");
    return v.template get_ref<const typename J::string_t&>();
}

template <class J>
Result<std::int64_t> integer(const J& v, const JsonAt& at, std::int64_t lo, std::int64_t hi) {
    std::int64_t x = 0;
    if (v.is_number_unsigned()) {
        auto u = v.template get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return error_at(at, "is " + describe(v) + ", out of range " + detail::range_text(lo, hi));
        x = static_cast<std::int64_t>(u);
    } else if (v.is_number_integer()) {
        x = v.template get<std::int64_t>();
    } else {
        return detail::wrong(v, at, "an integer");
    }
    if (x < lo || x > hi) return error_at(at, "is " + describe(v) + ", out of range " + detail::range_text(lo, hi));
    return x;
}

template <class J>
Result<std::uint64_t> unsigned_integer(const J& v, const JsonAt& at, std::uint64_t hi) {
    if (!v.is_number_integer()) return detail::wrong(v, at, "an integer");
    if (!v.is_number_unsigned()) return error_at(at, "is " + describe(v) + ", not an integer >= 0");
    auto u = v.template get<std::uint64_t>();
    if (u > hi) return error_at(at, "is " + describe(v) + ", above " + std::to_string(hi));
    return u;
}

template <class J>
Result<bool> boolean(const J& v, const JsonAt& at) {
    if (!v.is_boolean()) return detail::wrong(v, at, "true or false");
    return v.template get<bool>();
}

template <class J>
Result<double> number(const J& v, const JsonAt& at) {
    if (!v.is_number()) return detail::wrong(v, at, "a number");
    double d = v.template get<double>();
    if (!std::isfinite(d)) return error_at(at, "is " + describe(v) + ", not a finite number");
    return d;
}

template <class J>
Result<double> time_ms(const J& v, const JsonAt& at, Time rule) {
    if (!v.is_number()) return detail::wrong(v, at, "a time in ms");
    double d = v.template get<double>();
    if (std::isnan(d)) return error_at(at, "is NaN, not a time");
    if (d < 0) return error_at(at, "is " + describe(v) + " ms: a time is never negative");
    if (std::isinf(d) && rule != Time::infinity_failed) return error_at(at, "is Infinity, not a measured time");
    return d;
}

template <class J>
Result<const J*> field(const J& obj, std::string_view key, const JsonAt& at) {
    if (!obj.is_object()) return detail::wrong(obj, at, "an object");
    auto it = obj.find(typename J::object_t::key_type(key));
    return it == obj.end() ? nullptr : &*it;
}

namespace detail {
template <class J>
Result<const J*> present(const J& obj, std::string_view key, const JsonAt& at) {
    KILN_TRY(const J* v, field(obj, key, at));
    if (!v || v->is_null()) return error_at(at, "has no \"" + std::string(key) + "\"");
    return v;
}
}  // namespace detail

template <class J>
Result<std::string> string_field(const J& obj, std::string_view key, const JsonAt& at) {
    KILN_TRY(const J* v, detail::present(obj, key, at));
    return string(*v, at.key(key));
}

template <class J>
Result<std::int64_t> integer_field(const J& obj, std::string_view key, const JsonAt& at, std::int64_t lo,
                                   std::int64_t hi) {
    KILN_TRY(const J* v, detail::present(obj, key, at));
    return integer(*v, at.key(key), lo, hi);
}

template <class J>
Result<bool> boolean_field(const J& obj, std::string_view key, const JsonAt& at) {
    KILN_TRY(const J* v, detail::present(obj, key, at));
    return boolean(*v, at.key(key));
}

template <class J>
Result<double> time_field(const J& obj, std::string_view key, const JsonAt& at, Time rule) {
    KILN_TRY(const J* v, detail::present(obj, key, at));
    return time_ms(*v, at.key(key), rule);
}

template <class J>
Result<std::string> string_field_or(const J& obj, std::string_view key, const JsonAt& at, std::string fallback) {
    KILN_TRY(const J* v, field(obj, key, at));
    if (!v || v->is_null()) return fallback;
    return string(*v, at.key(key));
}

template <class J>
Result<std::int64_t> integer_field_or(const J& obj, std::string_view key, const JsonAt& at, std::int64_t fallback,
                                      std::int64_t lo, std::int64_t hi) {
    KILN_TRY(const J* v, field(obj, key, at));
    if (!v || v->is_null()) return fallback;
    return integer(*v, at.key(key), lo, hi);
}

template <class J>
Result<std::uint64_t> unsigned_field_or(const J& obj, std::string_view key, const JsonAt& at, std::uint64_t fallback,
                                        std::uint64_t hi) {
    KILN_TRY(const J* v, field(obj, key, at));
    if (!v || v->is_null()) return fallback;
    return unsigned_integer(*v, at.key(key), hi);
}

template <class J>
Result<bool> boolean_field_or(const J& obj, std::string_view key, const JsonAt& at, bool fallback) {
    KILN_TRY(const J* v, field(obj, key, at));
    if (!v || v->is_null()) return fallback;
    return boolean(*v, at.key(key));
}

template <class J>
Result<std::optional<double>> optional_time_field(const J& obj, std::string_view key, const JsonAt& at, Time rule) {
    KILN_TRY(const J* v, field(obj, key, at));
    if (!v || v->is_null()) return std::optional<double>();
    KILN_TRY(double d, time_ms(*v, at.key(key), rule));
    return std::optional<double>(d);
}

template <class J>
Result<std::optional<double>> optional_number_field(const J& obj, std::string_view key, const JsonAt& at) {
    KILN_TRY(const J* v, field(obj, key, at));
    if (!v || v->is_null()) return std::optional<double>();
    KILN_TRY(double d, number(*v, at.key(key)));
    return std::optional<double>(d);
}

}  // namespace kiln::json_get
