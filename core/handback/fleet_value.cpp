#include "handback/fleet_value.hpp"

#include <cmath>

#include "hash/sha256.hpp"
#include "util/json_get.hpp"
#include "util/python_json.hpp"

namespace kiln::handback {
namespace {

using Json = nlohmann::ordered_json;
namespace jg = json_get;

// The fields of one fleet value, every one checked (util/json_get). An op is only published
// complete, so every choice has a measured time: finite and >= 0, no Infinity.
Status read_fleet_value(MeasuredOp& op, const Json& j, const jg::JsonAt& top, const std::string& server) {
    KILN_TRY(op.op, jg::string_field(j, "op", top));
    KILN_TRY(op.inputs, jg::string_field(j, "inputs_key", top));
    KILN_TRY(op.precision, jg::string_field(j, "precision", top));
    KILN_TRY(op.device_name, jg::string_field(j, "device", top));
    KILN_TRY(op.host, jg::string_field_or(j, "host", top, ""));
    KILN_TRY(const Json* sys, jg::field(j, "system", top));
    if (!sys) return jg::error_at(top, "has no \"system\"");
    KILN_TRY(const Json* ver, jg::field(*sys, "version", top.key("system")));
    if (!ver) return jg::error_at(top.key("system"), "has no \"version\"");
    const jg::JsonAt ver_at = top.key("system").key("version");
    KILN_TRY(std::string triton, jg::string_field(*ver, "triton", ver_at));
    KILN_TRY(std::string cuda, jg::string_field(*ver, "cuda", ver_at));
    op.versions = {triton, cuda, server + " (measured on " + (op.host.empty() ? std::string("?") : op.host) + ")"};
    KILN_TRY(const Json* choices, jg::field(j, "choices", top));
    if (!choices || !choices->is_object() || choices->empty()) return jg::error_at(top, "has no choices");
    for (auto it = choices->begin(); it != choices->end(); ++it) {
        const jg::JsonAt at = top.key("choices").key(it.key());
        // Infinity only with the reason it fails as torch fails it (fleet_value writes both).
        KILN_TRY(std::string failed, jg::string_field_or(it.value(), "failed", at, ""));
        KILN_TRY(double ms,
                 jg::time_field(it.value(), "ms", at, failed.empty() ? jg::Time::finite : jg::Time::infinity_failed));
        KILN_TRY(auto spread, jg::optional_time_field(it.value(), "spread_ms", at));
        KILN_TRY(std::string kind, jg::string_field_or(it.value(), "kind", at, ""));
        MeasuredChoice c{it.key(), std::move(kind), ms, spread};
        if (std::isinf(ms)) c.infinite_why = failed;
        op.choices.push_back(std::move(c));
    }
    return ok_status();
}

}  // namespace

std::string retuned_key(const MeasuredOp& op) {
    return std::string(kRetunedPrefix) + op.device_name + ":" + op.versions.cuda + ":" +
           hash::sha256_hex(op.versions.triton).substr(0, 16) + ":" + op.op + ":" +
           hash::sha256_hex(op.inputs + "\n" + op.precision).substr(0, 16);
}

Json fleet_value(const MeasuredOp& op, const std::string& host, std::int64_t published) {
    Json j;
    j["system"] = op.system();
    j["op"] = op.op;
    j["inputs_key"] = op.inputs;
    j["precision"] = op.precision;
    j["device"] = op.device_name;
    j["host"] = host;
    j["published"] = published;
    auto& cs = j["choices"] = Json::object();
    for (const auto& c : op.choices) {
        cs[c.name] = {{"kind", c.kind}, {"ms", c.ms}, {"spread_ms", c.spread_ms ? Json(*c.spread_ms) : Json()}};
        if (c.infinite()) cs[c.name]["failed"] = c.infinite_why;
    }
    return j;
}

Result<MeasuredOp> decode_fleet_value(const std::string& key, std::string_view text, const std::string& server) {
    KILN_TRY(auto j, py_loads(text, key));
    auto bad = [&](const std::string& what) { return make_error(Errc::parse, "re-tuned op: " + what, key); };
    if (!j.is_object()) return bad("not a JSON object");
    MeasuredOp op;
    if (Status s = read_fleet_value(op, j, {key, ""}, server); !s.ok()) return bad(s.error().message);
    // The key must be this value's own: a value copied under another op's key would poison a cache.
    if (retuned_key(op) != key) return bad("the value does not belong to this key");
    return op;
}

}  // namespace kiln::handback
