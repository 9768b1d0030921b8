#include "inductor/misses.hpp"

#include <algorithm>

#include "inductor/graph_entry.hpp"
#include "inductor/guard_lookup.hpp"

namespace kiln::inductor {

Result<KeyedEntries> load_keyed_entries(const std::filesystem::path& root) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path fx = root / "fxgraph";
    if (!fs::is_directory(fx, ec))
        return make_error(Errc::not_found, "no fxgraph/ directory under the root", root.string(),
                          "pass the Inductor cache root ($TORCHINDUCTOR_CACHE_DIR)");
    std::vector<fs::path> key_dirs;
    for (fs::directory_iterator shard(fx, ec); !ec && shard != fs::directory_iterator(); shard.increment(ec)) {
        if (!shard->is_directory(ec)) continue;
        for (fs::directory_iterator k(shard->path(), ec); !ec && k != fs::directory_iterator(); k.increment(ec))
            if (k->is_directory(ec)) key_dirs.push_back(k->path());
    }
    if (ec) return io_error("list", fx.string(), ec.value());
    std::sort(key_dirs.begin(), key_dirs.end());
    KeyedEntries out;
    for (const auto& dir : key_dirs) {
        KILN_TRY(auto files, key_dir_entries(dir));
        for (const auto& f : files) {
            std::string rel = fs::relative(f, root, ec).generic_string();
            auto entry = load_graph_entry(f);
            if (!entry) {
                out.skipped.push_back(rel + ": " + entry.error().str());
                continue;
            }
            auto comps = parse_debug_lines(entry->debug_lines());
            if (!comps || comps->empty()) {
                out.skipped.push_back(rel + ": " +
                                      (comps ? std::string("no _fx_graph_cache_debug_lines") : comps.error().str()));
                continue;
            }
            out.entries.push_back({rel, dir.filename().string(), std::move(comps).value()});
        }
    }
    return out;
}

MissExplanation explain_miss(const CacheEvent& event, const KeyedEntries& cached) {
    MissExplanation m;
    if (event.components.empty()) {
        m.note = "the event records no key components";
        return m;
    }
    auto comps = parse_debug_lines(event.components);
    if (!comps) {
        m.note = "the event's components do not parse: " + comps.error().str();
        return m;
    }
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < cached.entries.size(); ++i) {
        const KeyedEntry& e = cached.entries[i];
        if (e.key == event.key) continue;
        ComponentDiff d = diff_components(*comps, e.components);
        if (!best || d.distance() < m.diff.distance()) {
            best = i;
            m.diff = std::move(d);
        }
    }
    if (!best) {
        m.note = cached.entries.empty() ? "no cached fxgraph entries with debug lines under the root"
                                        : "no cached entry under another key";
        return m;
    }
    m.closest_path = cached.entries[*best].path;
    m.closest_key = cached.entries[*best].key;
    return m;
}

namespace {

using ojson = nlohmann::ordered_json;

template <class T>
ojson or_null(const std::optional<T>& v) {
    return v ? ojson(*v) : ojson(nullptr);
}

ojson explanation_json(const MissExplanation& m) {
    if (!m.closest_path) return nullptr;
    ojson c = ojson::object();
    c["entry"] = *m.closest_path;
    c["key"] = *m.closest_key;
    std::vector<std::string> differing;
    for (const auto& ch : m.diff.changed) differing.push_back(ch.component);
    differing.insert(differing.end(), m.diff.only_a.begin(), m.diff.only_a.end());
    differing.insert(differing.end(), m.diff.only_b.begin(), m.diff.only_b.end());
    c["differing"] = differing;
    c["changed"] = ojson::array();
    for (const auto& ch : m.diff.changed)
        c["changed"].push_back({{"component", ch.component}, {"event", ch.a}, {"entry", ch.b}});
    c["same"] = m.diff.same;
    return c;
}

}  // namespace

ojson misses_to_json(const std::vector<CacheEvent>& events, const KeyedEntries* cached) {
    ojson out;
    out["events"] = ojson::array();
    std::size_t index = 0;
    for (const auto& e : events) {
        if (e.cache != "fx_graph") continue;
        ojson j;
        j["index"] = index++;
        j["log"] = e.log;
        j["line"] = e.line;
        j["compile_id"] = e.compile_id;
        j["key"] = e.key;
        j["state"] = e.state;
        j["time"] = e.timestamp;
        j["time_taken_ns"] = or_null(e.time_taken_ns);
        j["time_saved_ns"] = or_null(e.time_saved_ns);
        if (!e.reason.empty()) j["reason"] = e.reason;
        if (e.state == "miss" && cached) {
            MissExplanation m = explain_miss(e, *cached);
            j["closest"] = explanation_json(m);
            if (!m.note.empty()) j["note"] = m.note;
        }
        out["events"].push_back(std::move(j));
    }
    if (cached) {
        out["entries_compared"] = cached->entries.size();
        out["skipped"] = cached->skipped;
    }
    return out;
}

}  // namespace kiln::inductor
