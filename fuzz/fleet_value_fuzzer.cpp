// libFuzzer target: any byte string as a fleet value read back from Redis (`handback --fetch`): the
// first line is the key, the rest the value. decode_fleet_value checks every field through
// util/json_get; what decodes must carry only finite times >= 0 (it goes into torch's timing cache)
// and must write (fleet_value) and decode again under its own key. A crash, a sanitizer report (an
// uncaught nlohmann::type_error included), a timeout or a broken invariant is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "handback/fleet_value.hpp"
#include "util/python_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    std::size_t nl = text.find('\n');
    std::string key(text.substr(0, nl == std::string_view::npos ? text.size() : nl));
    std::string_view value = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    auto op = kiln::handback::decode_fleet_value(key, value, "fuzz");
    if (!op.ok()) return 0;
    for (const auto& c : op->choices)
        if (!std::isfinite(c.ms) || c.ms < 0 || (c.spread_ms && (!std::isfinite(*c.spread_ms) || *c.spread_ms < 0)))
            std::abort();
    auto again = kiln::handback::decode_fleet_value(
        kiln::handback::retuned_key(*op), kiln::py_dumps(kiln::handback::fleet_value(*op, op->host, 1)), "fuzz");
    if (!again.ok() || again->choices.size() != op->choices.size()) std::abort();
    return 0;
}
