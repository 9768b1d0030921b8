#pragma once
// The string table of one TORCH_TRACE log: torch writes each source file's path once, as a `str` record
// (`{"str": ["/path/to/file.py", 3]}`), and frames (dynamo_start's stack) name their file by that index.
// Every reader of frames (trace_run, compile_timeline, startup's compile_spans) keeps one of these.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace kiln::trace {

class TraceStrings {
public:
    // A hostile log may name indices at will: the table stops growing here.
    static constexpr std::size_t kMaxStrings = 1u << 20;

    // A `str` record's value, ["path", index]; anything else is ignored.
    void add(const nlohmann::json& value) {
        if (!value.is_array() || value.size() != 2 || !value[0].is_string() || !value[1].is_number_integer()) return;
        if (strings_.size() < kMaxStrings) strings_[value[1].get<std::int64_t>()] = value[0].get<std::string>();
    }

    // A frame's file: its "filename" as an index into the table, or as a path; "" when neither is known.
    std::string file_of(const nlohmann::json& frame) const {
        if (!frame.is_object()) return {};
        auto f = frame.find("filename");
        if (f == frame.end()) return {};
        if (f->is_string()) return f->get<std::string>();
        if (!f->is_number_integer()) return {};
        auto it = strings_.find(f->get<std::int64_t>());
        return it == strings_.end() ? std::string() : it->second;
    }

private:
    std::unordered_map<std::int64_t, std::string> strings_;
};

// A line number or count from a log as an int: 0 unless it is in [0, 1e9] (1e30 would not fit an int, and
// converting it is undefined).
inline int non_negative_int(double v) { return v >= 0 && v <= 1e9 ? static_cast<int>(v) : 0; }

// A record's field `k` as text: a string as is, any other value as its JSON; "" when absent or null.
inline std::string str_of(const nlohmann::json& j, const char* k) {
    auto it = j.find(k);
    if (it == j.end() || it->is_null()) return {};
    return it->is_string() ? it->get<std::string>() : it->dump();
}

// A record's field `k` as a finite number, else nullopt.
inline std::optional<double> number_of(const nlohmann::json& j, const char* k) {
    auto it = j.find(k);
    if (it == j.end() || !it->is_number()) return std::nullopt;
    double v = it->get<double>();
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

}  // namespace kiln::trace
