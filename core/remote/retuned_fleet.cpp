#include "remote/retuned_fleet.hpp"

#include <algorithm>
#include <chrono>

#include "timings/timing_cache_source.hpp"
#include "util/python_json.hpp"

namespace kiln::remote {
using Json = nlohmann::ordered_json;
using handback::MeasuredOp;

Result<FleetPublish> publish_retuned(RedisClient& client, const std::vector<MeasuredOp>& ops, const std::string& host) {
    FleetPublish out{client.endpoint().display(), {}};
    if (ops.empty()) return out;
    const std::int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    KILN_TRY(auto m, client.command({"MULTI"}));
    (void)m;
    for (const auto& op : ops) {
        std::string key = retuned_key(op);
        auto queued = client.command({"SET", key, py_dumps(handback::fleet_value(op, host, now))});
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
            auto op = handback::decode_fleet_value(page.keys[i], *values[i], out.server);
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
