#include "remote/remote_stats.hpp"

#include <cstdio>

#include "inductor/stats.hpp"

namespace kiln::remote {

Result<RemoteStats> collect_remote_stats(RedisClient& client, BrowseOptions options, std::size_t max_problems) {
    options.keep_values = false;
    RemoteStats stats;
    stats.root = client.endpoint().display();
    auto totals = browse_remote(client, options, [&](std::vector<RemoteEntry>& batch) -> Status {
        for (const auto& e : batch) {
            auto& c = stats.categories[e.state == RemoteState::foreign || e.cache_id.empty() ? "foreign" : e.cache_id];
            ++c.keys;
            c.bytes += e.value_bytes;
            ++stats.total_keys;
            stats.total_bytes += e.value_bytes;
            bool bad = e.state == RemoteState::corrupt || e.state == RemoteState::missing;
            if (!bad) continue;
            ++c.corrupt;
            ++stats.unreadable;
            if (stats.problems.size() < max_problems)
                stats.problems.push_back(e.redis_key + ": " +
                                         (e.state == RemoteState::missing ? "gone, or not a string value" : e.problem));
        }
        return ok_status();
    });
    if (!totals) return std::move(totals.error());
    stats.browse = *totals;
    return stats;
}

nlohmann::ordered_json to_json(const RemoteStats& s) {
    nlohmann::ordered_json j;
    j["root"] = s.root;
    j["categories"] = nlohmann::ordered_json::object();
    for (const auto& [id, c] : s.categories)
        j["categories"][id] = {{"files", c.keys}, {"entries", c.keys}, {"bytes", c.bytes}};
    auto fx = s.categories.find(std::string(kFxGraphCacheId));
    j["fxgraph_keys"] = fx == s.categories.end() ? 0 : fx->second.keys;
    j["total"] = {{"files", s.total_keys}, {"bytes", s.total_bytes}};
    j["unreadable"] = s.unreadable;
    j["problems"] = s.problems;  // "<redis key>: <why>"; keys are any bytes (kiln::dump_json escapes them)
    return j;
}

std::string format_remote_stats(const RemoteStats& s) {
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "Cache root    %s (redis)\n\n%-26s %9s %9s %12s\n", s.root.c_str(), "cache id",
                  "keys", "corrupt", "size");
    out += line;
    for (const auto& [id, c] : s.categories) {
        std::snprintf(line, sizeof line, "%-26s %9llu %9llu %12s\n", id.c_str(),
                      static_cast<unsigned long long>(c.keys), static_cast<unsigned long long>(c.corrupt),
                      inductor::format_bytes(c.bytes).c_str());
        out += line;
    }
    std::snprintf(line, sizeof line, "%-26s %9llu %9llu %12s\n\nround trips   %llu (SCAN steps + GET batches)\n",
                  "total", static_cast<unsigned long long>(s.total_keys), static_cast<unsigned long long>(s.unreadable),
                  inductor::format_bytes(s.total_bytes).c_str(), static_cast<unsigned long long>(s.browse.round_trips));
    out += line;
    return out;
}

}  // namespace kiln::remote
