#include "handback/run_timings.hpp"

#include <limits>

#include "timings/timing_cache_source.hpp"
#include "util/python_json.hpp"

namespace kiln::handback {

timings::TimingSet run_to_timing_set(const RetuneRun& run, const std::string& origin) {
    using Json = nlohmann::ordered_json;
    timings::TimingSet set;
    for (const auto& d : run.devices) {
        std::string label = d.name + " (device " + std::to_string(d.index) + ")";
        timings::Source src{origin, timings::SourceKind::session_log, label, 0};
        for (const auto& op : run.ops) {
            Json file{{"system", {{"device", {{"name", d.name}}}}}, {"cache", Json::object()}};
            auto& slot = file["cache"][op.op][op.inputs][op.precision] = Json::object();
            for (const auto& c : op.choices) {
                const Measurement* m = c.on(d.index);
                if (m) slot[c.name] = m->ok() ? Json(*m->ms) : Json(std::numeric_limits<double>::infinity());
            }
            if (slot.empty()) continue;
            auto parsed = timings::parse_timing_cache(py_dumps(file), origin, {});
            if (!parsed) {
                set.warnings.push_back(parsed.error().str());
                continue;
            }
            for (auto& t : parsed->ops) {
                t.device = label;
                t.source = origin;
                for (auto& c : t.choices)
                    for (const auto& rc : op.choices)
                        if (rc.name == c.name)
                            if (const Measurement* m = rc.on(d.index)) {
                                c.spread_ms = m->spread_ms;
                                if (!m->ok()) c.error = m->status + (m->why.empty() ? "" : ": " + m->why);
                            }
                set.ops.push_back(std::move(t));
                ++src.ops;
            }
        }
        set.sources.push_back(std::move(src));
    }
    return set;
}

bool looks_like_run(const std::string& text) {
    auto j = py_loads(text);
    return j.ok() && j->is_object() && j->contains("devices") && j->contains("ops") && (*j)["ops"].is_array();
}

}  // namespace kiln::handback
