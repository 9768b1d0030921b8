#include "remote/shared_timings.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "hash/sha256.hpp"
#include "timings/timing_cache_source.hpp"
#include "util/atomic_file.hpp"
#include "util/json_get.hpp"
#include "util/path_component.hpp"
#include "util/python_json.hpp"

namespace kiln::remote {
namespace {

std::string device_of(const nlohmann::ordered_json& system) {
    if (system.contains("device") && system["device"].is_object() && system["device"].contains("name") &&
        system["device"]["name"].is_string())
        return system["device"]["name"].get<std::string>();
    return "cpu";
}

bool same_time(double a, double b) { return a == b || (std::isinf(a) && std::isinf(b)); }

nlohmann::ordered_json record_json(const TimingRecord& r) {
    return {{"ms", r.ms}, {"host", r.host}, {"device", r.device}, {"published", r.published}};
}

nlohmann::ordered_json to_value(const SharedTimings& s) {
    nlohmann::ordered_json j;
    j["system"] = s.system;
    j["op"] = s.key.op;
    j["inputs_key"] = s.key.inputs_key;
    j["precision"] = s.key.precision;
    auto& t = j["timings"] = nlohmann::ordered_json::object();
    for (const auto& [choice, records] : s.choices) {
        auto& arr = t[choice] = nlohmann::ordered_json::array();
        for (const auto& r : records) arr.push_back(record_json(r));
    }
    return j;
}

// Every field through util/json_get: a wrong type, or a time that is NaN or negative, is this key's
// error, which the reader reports beside the other keys (issue 42 #7, #8). Infinity is a failed choice
// here, as in the timing cache it came from.
Status read_shared_value(SharedTimings& s, const nlohmann::ordered_json& j, const json_get::JsonAt& top) {
    namespace jg = json_get;
    KILN_TRY(const nlohmann::ordered_json* sys, jg::field(j, "system", top));
    if (!sys || !sys->is_object()) return jg::error_at(top, "has no \"system\" object");
    s.system = *sys;
    KILN_TRY(s.system_hash, jg::string_field_or(*sys, "hash", top.key("system"), ""));
    KILN_TRY(s.key.op, jg::string_field(j, "op", top));
    KILN_TRY(s.key.inputs_key, jg::string_field(j, "inputs_key", top));
    KILN_TRY(s.key.precision, jg::string_field(j, "precision", top));
    KILN_TRY(const nlohmann::ordered_json* timings, jg::field(j, "timings", top));
    if (!timings || !timings->is_object()) return jg::error_at(top, "has no \"timings\" object");
    for (auto it = timings->begin(); it != timings->end(); ++it) {
        const jg::JsonAt at = top.key("timings").key(it.key());
        if (!it.value().is_array()) return jg::error_at(at, "is " + jg::describe(it.value()) + ", not a list");
        auto& records = s.choices[it.key()];
        for (std::size_t i = 0; i < it.value().size(); ++i) {
            const auto& r = it.value()[i];
            TimingRecord rec;
            KILN_TRY(rec.ms, jg::time_field(r, "ms", at.index(i), jg::Time::infinity_failed));
            KILN_TRY(rec.host, jg::string_field_or(r, "host", at.index(i), ""));
            KILN_TRY(rec.device, jg::string_field_or(r, "device", at.index(i), ""));
            KILN_TRY(rec.published, jg::integer_field_or(r, "published", at.index(i), 0));
            records.push_back(std::move(rec));
        }
    }
    return ok_status();
}

Result<SharedTimings> from_value(const std::string& redis_key, std::string_view text) {
    KILN_TRY(auto j, py_loads(text, redis_key));
    if (!j.is_object()) return make_error(Errc::parse, "shared timings: not a JSON object", redis_key);
    SharedTimings s;
    s.redis_key = redis_key;
    if (Status st = read_shared_value(s, j, {redis_key, ""}); !st.ok())
        return make_error(Errc::parse, "shared timings: " + st.error().message, redis_key);
    return s;
}

}  // namespace

std::string this_host() {
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0 || !*buf) return "unknown-host";
    return buf;
}

std::string shared_timings_key(std::string_view system_hash, const tuning::TimingKey& key) {
    std::string digest = hash::sha256_hex(key.inputs_key + "\n" + key.precision).substr(0, 16);
    return std::string(kSharedTimingsPrefix) + std::string(system_hash) + ":" + key.op + ":" + digest;
}

Result<PublishReport> publish_timings(RedisClient& client, const nlohmann::ordered_json& system,
                                      const tuning::TimingKey& key, const tuning::ChoiceTimings& timings,
                                      const std::string& host) {
    if (!system.is_object() || !system.contains("hash") || !system["hash"].is_string())
        return make_error(Errc::invalid_argument, "the system block has no \"hash\"", "publish timings");
    const std::string redis_key = shared_timings_key(system["hash"].get<std::string>(), key);
    const std::int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    // Optimistic concurrency: EXEC answers nil when another publisher changed the key since WATCH.
    for (int attempt = 0; attempt < 20; ++attempt) {
        KILN_TRY(auto watched, client.command({"WATCH", redis_key}));
        (void)watched;
        KILN_TRY(auto current, client.get(redis_key));
        SharedTimings s;
        if (current) {
            auto parsed = from_value(redis_key, *current);
            if (!parsed) {
                (void)client.command({"UNWATCH"});
                return std::move(parsed.error()).with_hint("another program wrote this key; delete it to share again");
            }
            s = std::move(parsed).value();
        } else {
            s = SharedTimings{redis_key, system, system["hash"].get<std::string>(), key, {}};
        }
        PublishReport report;
        for (const auto& [choice, ms] : timings) {
            auto& records = s.choices[choice];
            bool known = false;
            for (const auto& r : records) known = known || same_time(r.ms, ms);
            if (known) {
                ++report.same;
                continue;
            }
            (records.empty() ? report.added : report.conflicting)++;
            records.push_back({ms, host, device_of(system), now});
        }
        if (report.added + report.conflicting == 0) {
            KILN_TRY(auto u, client.command({"UNWATCH"}));
            (void)u;
            return report;
        }
        KILN_TRY(auto m, client.command({"MULTI"}));
        (void)m;
        KILN_TRY(auto q, client.command({"SET", redis_key, py_dumps(to_value(s))}));
        (void)q;
        KILN_TRY(auto exec, client.exec(1));
        if (exec.type == RedisReply::Type::array) return report;
    }
    return make_error(Errc::busy, "the shared timings kept changing under concurrent publishers", redis_key, "retry");
}

Result<std::vector<SharedTimings>> read_shared_timings(RedisClient& client, std::vector<std::string>* warnings) {
    std::vector<SharedTimings> out;
    std::string pattern = std::string(kSharedTimingsPrefix) + "*";
    KILN_CHECK(client.scan_all(pattern, 1000, [&](ScanPage& page) -> Result<bool> {
        KILN_TRY(auto values, client.get_many(page.keys));
        for (size_t i = 0; i < page.keys.size(); ++i) {
            if (!values[i]) continue;
            auto s = from_value(page.keys[i], *values[i]);
            if (s && !s->system_hash.empty() && !is_plain_file_name(s->system_hash))  // it names a file
                s = make_error(Errc::parse,
                               "shared timings: the system's \"hash\" is not a file name (torch's is a SHA-256 "
                               "hex digest)",
                               page.keys[i]);
            if (s) out.push_back(std::move(s).value());
            else if (warnings) warnings->push_back(s.error().str());
        }
        return true;
    }));
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.redis_key < b.redis_key; });
    // SCAN can repeat a key: keep one.
    out.erase(
        std::unique(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.redis_key == b.redis_key; }),
        out.end());
    return out;
}

Status write_as_global_cache(const std::vector<SharedTimings>& shared, const std::filesystem::path& dir) {
    std::map<std::string, nlohmann::ordered_json> files;
    for (const auto& s : shared) {
        if (!is_plain_file_name(s.system_hash)) continue;  // "" or a path: read_shared_timings warns of those
        auto& f = files[s.system_hash];
        if (f.is_null()) f = {{"system", s.system}, {"cache", nlohmann::ordered_json::object()}};
        auto& slot = f["cache"][s.key.op][s.key.inputs_key][s.key.precision];
        if (!slot.is_object()) slot = nlohmann::ordered_json::object();
        for (const auto& [choice, records] : s.choices)
            if (!records.empty()) slot[choice] = records.front().ms;
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return io_error("create directory", dir.string(), ec.value());
    for (const auto& [hash, f] : files) {
        KILN_CHECK(write_atomic(dir / hash, py_dumps(f, {.sort_keys = false, .indent = 4}), false));
    }
    return ok_status();
}

timings::TimingSet shared_to_timing_set(const std::vector<SharedTimings>& shared, const std::string& origin) {
    timings::TimingSet set;
    for (const auto& s : shared) {
        std::string path = origin + "/" + s.redis_key;
        timings::Source src{path, timings::SourceKind::timing_cache, device_of(s.system), 0};
        // One op per publishing host, in the order hosts first published: disagreements stay visible.
        std::vector<std::string> hosts;
        for (const auto& [choice, records] : s.choices)
            for (const auto& r : records)
                if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
        for (const auto& host : hosts) {
            nlohmann::ordered_json slot = nlohmann::ordered_json::object();
            for (const auto& [choice, records] : s.choices)
                for (const auto& r : records)
                    if (r.host == host) {
                        slot[choice] = r.ms;
                        break;
                    }
            nlohmann::ordered_json file{{"system", s.system}, {"cache", nlohmann::ordered_json::object()}};
            file["cache"][s.key.op][s.key.inputs_key][s.key.precision] = slot;
            auto parsed = timings::parse_timing_cache(py_dumps(file), path, {});
            if (!parsed) {
                set.warnings.push_back(parsed.error().str());
                continue;
            }
            for (auto& op : parsed->ops) {
                op.device = device_of(s.system) + " @ " + host;
                op.source = path;
                set.ops.push_back(std::move(op));
                ++src.ops;
            }
        }
        set.sources.push_back(std::move(src));
    }
    return set;
}

Result<timings::TimingSet> collect_shared_timings(std::string_view url, RedisLimits timeouts) {
    KILN_TRY(auto ep, resolve_redis_endpoint(url));
    KILN_TRY(auto client, RedisClient::connect(ep, timeouts));
    std::vector<std::string> warnings;
    KILN_TRY(auto shared, read_shared_timings(client, &warnings));
    auto set = shared_to_timing_set(shared, ep.display());
    set.warnings.insert(set.warnings.end(), warnings.begin(), warnings.end());
    return set;
}

}  // namespace kiln::remote
