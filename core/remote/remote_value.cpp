#include "remote/remote_value.hpp"

#include <algorithm>

#include "remote/base64.hpp"

namespace kiln::remote {
namespace {

Error not_json(const nlohmann::ordered_json::parse_error& e, std::string_view value) {
    std::string head(value.substr(0, 24));
    for (char& c : head)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '.';
    return make_error(
        Errc::parse, "the value is not JSON (" + std::string(e.what()) + ")",
        "byte " + std::to_string(e.byte) + " of " + std::to_string(value.size()) + ", starts '" + head + "'",
        "Inductor's RedisRemoteCache writes JSON; this key was written by something else");
}

}  // namespace

Result<nlohmann::ordered_json> decode_json_value(std::string_view value) {
    try {
        return nlohmann::ordered_json::parse(value.begin(), value.end());
    } catch (const nlohmann::ordered_json::parse_error& e) {
        return not_json(e, value);
    }
}

// Inductor's own layout, {"data": "<base64>", ...}, without building a JSON string of megabytes:
// the base64 is decoded straight from the value and only the small rest goes through the parser.
// nullopt when the value has another shape (the general path then decides, with its errors).
static std::optional<GraphValue> decode_inductor_layout(std::string_view value) {
    constexpr std::string_view head = "{\"data\": \"";
    if (!value.starts_with(head)) return std::nullopt;
    // The closing quote is near the end (only ", "time_taken_ms": n}" follows): look for the first
    // quote in the last 256 bytes instead of scanning megabytes of base64. If that guess is past
    // the real close, the data holds a '"', base64 rejects it, and the full scan decides.
    std::size_t from = std::max(head.size(), value.size() > 256 ? value.size() - 256 : std::size_t{0});
    auto close = value.find('"', from);
    auto pickle = close == std::string_view::npos ? Result<std::string>(make_error(Errc::parse, "no closing quote"))
                                                  : base64_decode(value.substr(head.size(), close - head.size()));
    if (!pickle) {
        close = value.find('"', head.size());
        if (close == std::string_view::npos) return std::nullopt;
        pickle = base64_decode(value.substr(head.size(), close - head.size()));
        if (!pickle) return std::nullopt;
    }
    std::string rest = "{\"data\": \"\"";
    rest.append(value.substr(close + 1));
    auto j = nlohmann::ordered_json::parse(rest, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    GraphValue out{std::move(pickle).value(), std::nullopt};
    if (auto t = j.find("time_taken_ms"); t != j.end() && t->is_number()) out.time_taken_ms = t->get<long long>();
    return out;
}

Result<GraphValue> decode_graph_value(std::string_view value) {
    if (auto fast = decode_inductor_layout(value)) return std::move(*fast);
    KILN_TRY(auto j, decode_json_value(value));
    if (!j.is_object())
        return make_error(Errc::parse, "the value is JSON but not an object", {},
                          "expected {\"data\": ..., \"time_taken_ms\": ...}");
    auto data = j.find("data");
    if (data == j.end() || !data->is_string())
        return make_error(Errc::parse, "the value has no string field 'data'", {},
                          "expected Inductor's {\"data\": base64 pickle, ...}");
    auto pickle = base64_decode(data->get_ref<const std::string&>());
    if (!pickle) return std::move(pickle.error()).with_context("field 'data'");
    GraphValue out{std::move(pickle).value(), std::nullopt};
    if (auto t = j.find("time_taken_ms"); t != j.end() && t->is_number()) out.time_taken_ms = t->get<long long>();
    return out;
}

std::string encode_graph_value(std::string_view pickle, long long time_taken_ms) {
    std::string out = "{\"data\": \"";
    out += base64_encode(pickle);
    out += "\", \"time_taken_ms\": ";
    out += std::to_string(time_taken_ms);
    out += '}';
    return out;
}

}  // namespace kiln::remote
