#include "handback/handback_report.hpp"

namespace kiln::handback {
namespace {

using Json = nlohmann::ordered_json;

Json skipped_ops_json(const std::vector<SkippedOp>& skipped) {
    Json a = Json::array();
    for (const auto& s : skipped) a.push_back({{"op", s.label}, {"device", s.device_name}, {"why", s.why}});
    return a;
}

// Ops agreed across several devices (retune --each-device): each device's own winner beside the agreed one.
Json agreed_json(const std::vector<MeasuredOp>& ops) {
    Json a = Json::array();
    for (const auto& op : ops) {
        if (op.agreed_from.size() < 2) continue;
        const MeasuredChoice* w = op.winner();
        Json devices = Json::array();
        for (std::size_t k = 0; k < op.agreed_from.size(); ++k) {
            const MeasuredChoice* own = op.device_winner(k);
            devices.push_back({{"device", op.agreed_from[k]},
                               {"winner", own ? Json(own->name) : Json()},
                               {"winner_ms", own ? Json(own->device_ms[k]) : Json()},
                               {"agreed_ms", Json(w->device_ms[k])}});
        }
        a.push_back({{"op", op.label()},
                     {"device_name", op.device_name},
                     {"agreed", w->name},
                     {"median_ms", w->ms},
                     {"devices_differed", op.devices_differed()},
                     {"devices", std::move(devices)}});
    }
    return a;
}

Json shard_json(const ShardSlice& s) { return {{"index", s.shard.index}, {"count", s.shard.count}, {"ops", s.ops}}; }

}  // namespace

std::string agreed_rule_text() {
    return "each choice's time is the median of the times the devices measured; the smallest median wins, so "
           "every GPU runs the same kernel";
}

nlohmann::ordered_json to_json(const HandbackReport& r) {
    if (r.shard && r.shard->nothing_to_do()) return Json{{"shard", shard_json(*r.shard)}};
    Json out = Json::object();
    if (r.fetched)
        out["fetched"] = {{"server", r.fetched->server},
                          {"entries", r.fetched->entries},
                          {"for_devices", r.fetched->for_devices},
                          {"ops", r.fetched->ops}};
    if (r.shard) out["shard"] = shard_json(*r.shard);
    out["complete_ops"] = r.ops.size();
    if (Json agreed = agreed_json(r.ops); !agreed.empty()) {
        out["agreed_across_devices"] = {{"rule", agreed_rule_text()}, {"ops", std::move(agreed)}};
    }
    out["skipped"] = skipped_ops_json(r.skipped);
    Json infinite = Json::array();
    for (const auto& i : r.infinite) infinite.push_back({{"op", i.op}, {"choice", i.choice}, {"why", i.why}});
    out["infinite"] = std::move(infinite);
    if (r.written) {
        Json files = Json::array();
        for (const auto& f : r.written->files)
            files.push_back({{"path", f.path},
                             {"device", f.device},
                             {"system_hash", f.system_hash},
                             {"versions_from", f.versions_from},
                             {"added", f.added},
                             {"replaced", f.replaced},
                             {"created", f.created}});
        out["written"] = std::move(files);
    }
    if (r.published) out["published"] = {{"server", r.published->server}, {"keys", r.published->keys}};
    if (r.pinned) {
        Json pinned = Json::array();
        for (const auto& p : r.pinned->table.pinned)
            pinned.push_back(
                {{"key", p.key}, {"device", p.device_name}, {"winner", p.winner}, {"ms", p.ms}, {"config", p.config}});
        out["pinned"] = {{"path", r.pinned->path},
                         {"entries", std::move(pinned)},
                         {"skipped", skipped_ops_json(r.pinned->table.skipped)}};
    }
    return out;
}

}  // namespace kiln::handback
