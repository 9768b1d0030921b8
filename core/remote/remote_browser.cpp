#include "remote/remote_browser.hpp"

#include <unordered_set>

#include "remote/remote_value.hpp"

namespace kiln::remote {

const char* remote_state_name(RemoteState s) {
    switch (s) {
    case RemoteState::graph: return "graph";
    case RemoteState::json: return "json";
    case RemoteState::corrupt: return "corrupt";
    case RemoteState::foreign: return "foreign";
    case RemoteState::missing: return "missing";
    }
    return "missing";
}

RemoteEntry classify_remote_value(std::string redis_key, std::optional<std::string> value, bool keep_value) {
    RemoteEntry e;
    e.redis_key = std::move(redis_key);
    auto parsed = parse_remote_key(e.redis_key);
    if (parsed) { e.cache_id = std::move(parsed->cache_id); e.key = std::move(parsed->key); }
    if (!value) { e.state = RemoteState::missing; return e; }
    e.value_bytes = value->size();
    if (!parsed) { e.state = RemoteState::foreign; return e; }
    if (value_kind_for(e.cache_id) == RemoteValueKind::graph_pickle) {
        auto g = decode_graph_value(*value);
        if (!g) { e.state = RemoteState::corrupt; e.problem = g.error().str(); return e; }
        e.state = RemoteState::graph;
        e.time_taken_ms = g->time_taken_ms;
        if (keep_value) e.pickle = std::move(g->pickle);
        return e;
    }
    auto j = decode_json_value(*value);
    if (!j) { e.state = RemoteState::corrupt; e.problem = j.error().str(); return e; }
    e.state = RemoteState::json;
    if (j->is_object()) {
        if (auto t = j->find("time_taken_ms"); t != j->end() && t->is_number()) e.time_taken_ms = t->get<long long>();
    }
    if (keep_value) e.json = std::move(j).value();
    return e;
}

Result<BrowseTotals> browse_remote(RedisClient& client, const BrowseOptions& options, const BatchSink& sink) {
    BrowseTotals totals;
    // SCAN may return a key more than once (rehashing during the iteration): remember them.
    std::unordered_set<std::string> seen;
    std::vector<std::string> pending;
    auto flush = [&]() -> Status {
        if (pending.empty()) return ok_status();
        auto values = client.get_many(pending);
        if (!values) return std::move(values.error());
        ++totals.round_trips;
        std::vector<RemoteEntry> batch;
        batch.reserve(pending.size());
        for (size_t i = 0; i < pending.size(); ++i) {
            totals.value_bytes += (*values)[i] ? (*values)[i]->size() : 0;
            batch.push_back(classify_remote_value(std::move(pending[i]), std::move((*values)[i]), options.keep_values));
        }
        totals.keys += batch.size();
        pending.clear();
        return sink(batch);
    };
    std::string cursor = "0";
    do {
        if (options.cancel && options.cancel->load()) return make_error(Errc::cancelled, "browse cancelled");
        KILN_TRY(auto page, client.scan(cursor, options.match, options.scan_count));
        ++totals.round_trips;
        cursor = std::move(page.cursor);
        for (auto& k : page.keys) {
            if (!seen.insert(k).second) continue;
            pending.push_back(std::move(k));
            if (pending.size() >= options.batch) KILN_CHECK(flush());
        }
    } while (cursor != "0");
    KILN_CHECK(flush());
    return totals;
}

}  // namespace kiln::remote
