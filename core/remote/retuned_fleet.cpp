#include "remote/retuned_fleet.hpp"

#include <algorithm>
#include <chrono>

#include "hash/sha256.hpp"
#include "timings/timing_cache_source.hpp"
#include "util/python_json.hpp"

namespace kiln::remote {
namespace {

using Json = nlohmann::ordered_json;
using handback::MeasuredOp;

Json value_of(const MeasuredOp& op, const std::string& host, std::int64_t now) {
    Json j;
    j["system"] = op.system();
    j["op"] = op.op;
    j["inputs_key"] = op.inputs;
    j["precision"] = op.precision;
    j["device"] = op.device_name;
    j["host"] = host;
    j["published"] = now;
    auto& cs = j["choices"] = Json::object();
    for (const auto& c : op.choices)
        cs[c.name] = {{"kind", c.kind}, {"ms", c.ms}, {"spread_ms", c.spread_ms ? Json(*c.spread_ms) : Json()}};
    return j;
}

Result<MeasuredOp> op_of(const std::string& key, std::string_view text, const std::string& server) {
    KILN_TRY(auto j, py_loads(text, key));
    auto bad = [&](const char* what) { return make_error(Errc::parse, std::string("re-tuned op: ") + what, key); };
    if (!j.is_object()) return bad("not a JSON object");
    for (const char* f : {"op", "inputs_key", "precision", "device"})
        if (!j.contains(f) || !j[f].is_string()) return bad("a key field is missing");
    if (!j.contains("system") || !j["system"].is_object() || !j["system"].contains("version") ||
        !j["system"]["version"].is_object())
        return bad("no \"system\" with a \"version\"");
    const auto& ver = j["system"]["version"];
    if (!ver.contains("triton") || !ver["triton"].is_string() || !ver.contains("cuda") || !ver["cuda"].is_string())
        return bad("the system names no Triton key or CUDA version");
    if (!j.contains("choices") || !j["choices"].is_object() || j["choices"].empty()) return bad("no choices");
    MeasuredOp op;
    op.op = j["op"].get<std::string>();
    op.inputs = j["inputs_key"].get<std::string>();
    op.precision = j["precision"].get<std::string>();
    op.device_name = j["device"].get<std::string>();
    op.host = j.value("host", std::string());
    op.versions = {ver["triton"].get<std::string>(), ver["cuda"].get<std::string>(),
                   server + " (measured on " + (op.host.empty() ? std::string("?") : op.host) + ")"};
    for (auto it = j["choices"].begin(); it != j["choices"].end(); ++it) {
        const auto& c = it.value();
        if (!c.is_object() || !c.contains("ms") || !c["ms"].is_number()) return bad("a choice has no numeric \"ms\"");
        std::optional<double> spread;
        if (c.contains("spread_ms") && c["spread_ms"].is_number()) spread = c["spread_ms"].get<double>();
        op.choices.push_back({it.key(), c.value("kind", std::string()), c["ms"].get<double>(), spread});
    }
    // The key must be this value's own: a value copied under another op's key would poison a cache.
    if (retuned_key(op) != key) return bad("the value does not belong to this key");
    return op;
}

}  // namespace

std::string retuned_key(const MeasuredOp& op) {
    return std::string(kRetunedPrefix) + op.device_name + ":" + op.versions.cuda + ":" +
           hash::sha256_hex(op.versions.triton).substr(0, 16) + ":" + op.op + ":" +
           hash::sha256_hex(op.inputs + "\n" + op.precision).substr(0, 16);
}

Result<FleetPublish> publish_retuned(RedisClient& client, const std::vector<MeasuredOp>& ops, const std::string& host) {
    FleetPublish out{client.endpoint().display(), {}};
    if (ops.empty()) return out;
    const std::int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    KILN_TRY(auto m, client.command({"MULTI"}));
    (void)m;
    for (const auto& op : ops) {
        std::string key = retuned_key(op);
        auto queued = client.command({"SET", key, py_dumps(value_of(op, host, now))});
        if (!queued) {
            (void)client.command({"DISCARD"});
            return std::move(queued.error()).with_hint("nothing was published (the transaction was discarded)");
        }
        out.keys.push_back(std::move(key));
    }
    auto exec = client.exec(ops.size());
    if (!exec && exec.error().hint.empty())
        return std::move(exec.error()).with_hint("nothing was published unless EXEC reached the server");
    if (!exec) return std::move(exec.error());  // a SET refused inside EXEC: its message, not "published"
    if (exec->type != RedisReply::Type::array)  // nil: the server discarded the transaction
        return make_error(Errc::external, "the server did not apply the publish (EXEC answered no list)", out.server,
                          "nothing was published; try again");
    return out;
}

Result<FleetPublish> publish_retuned(std::string_view url, const std::vector<MeasuredOp>& ops, const std::string& host,
                                     RedisLimits limits) {
    KILN_TRY(auto ep, resolve_redis_endpoint(url));
    KILN_TRY(auto client, RedisClient::connect(ep, limits));
    return publish_retuned(client, ops, host);
}

Result<FleetEntries> read_retuned(RedisClient& client) {
    FleetEntries out;
    out.server = client.endpoint().display();
    std::vector<std::pair<std::string, MeasuredOp>> found;
    KILN_CHECK(client.scan_all(std::string(kRetunedPrefix) + "*", 1000, [&](ScanPage& page) -> Result<bool> {
        KILN_TRY(auto values, client.get_many(page.keys));
        for (size_t i = 0; i < page.keys.size(); ++i) {
            if (!values[i]) continue;
            auto op = op_of(page.keys[i], *values[i], out.server);
            if (op) found.emplace_back(page.keys[i], std::move(op).value());
            else out.warnings.push_back(op.error().str());
        }
        return true;
    }));
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [key, op] : found) {
        if (!out.keys.empty() && out.keys.back() == key) continue;  // SCAN may repeat a key
        out.keys.push_back(key);
        out.ops.push_back(std::move(op));
    }
    return out;
}

Result<FleetEntries> read_retuned(std::string_view url, RedisLimits limits) {
    KILN_TRY(auto ep, resolve_redis_endpoint(url));
    KILN_TRY(auto client, RedisClient::connect(ep, limits));
    return read_retuned(client);
}

std::vector<MeasuredOp> for_devices(const FleetEntries& entries, const std::vector<std::string>& names) {
    std::vector<MeasuredOp> out;
    for (const auto& op : entries.ops)
        if (std::find(names.begin(), names.end(), op.device_name) != names.end()) out.push_back(op);
    return out;
}

timings::TimingSet retuned_to_timing_set(const FleetEntries& entries) {
    timings::TimingSet set;
    for (size_t i = 0; i < entries.ops.size(); ++i) {
        const auto& op = entries.ops[i];
        std::string path = entries.server + "/" + entries.keys[i];
        Json file{{"system", op.system()}, {"cache", Json::object()}};
        auto& slot = file["cache"][op.op][op.inputs][op.precision] = Json::object();
        for (const auto& c : op.choices) slot[c.name] = c.ms;
        auto parsed = timings::parse_timing_cache(py_dumps(file), path, {});
        if (!parsed) {
            set.warnings.push_back(parsed.error().str());
            continue;
        }
        timings::Source src{path, timings::SourceKind::timing_cache, op.device_name, 0};
        for (auto& t : parsed->ops) {
            t.device = op.device_name + " @ " + (op.host.empty() ? std::string("?") : op.host);
            t.source = path;
            for (auto& c : t.choices)
                for (const auto& m : op.choices)
                    if (m.name == c.name) c.spread_ms = m.spread_ms;
            set.ops.push_back(std::move(t));
            ++src.ops;
        }
        set.sources.push_back(std::move(src));
    }
    return set;
}

}  // namespace kiln::remote
