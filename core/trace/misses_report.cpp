// The guard-miss explanation and the JSON report of `kiln-cli misses` (misses.hpp).
#include <charconv>

#include "inductor/beneath_root.hpp"
#include "inductor/graph_list.hpp"
#include "trace/misses.hpp"
#include "util/path_component.hpp"

namespace kiln::trace {

namespace {

using ojson = nlohmann::ordered_json;

std::optional<std::int64_t> parse_int(const std::string& s) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

template <class T>
ojson or_null(const std::optional<T>& v) {
    return v ? ojson(*v) : ojson(nullptr);
}

ojson closest_json(const MissExplanation& m) {
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

ojson guard_miss_json(const GuardMissExplanation& g) {
    ojson j;
    j["key_dir"] = g.key_dir;
    j["symbols"] = ojson::array();
    for (const auto& s : g.symbols)
        j["symbols"].push_back(
            {{"name", s.name}, {"symbol", s.symbol}, {"value", or_null(s.value)}, {"source", s.source}});
    j["entries"] = ojson::array();
    for (const auto& e : g.entries) {
        ojson x;
        x["file"] = e.check.file;
        x["guards_expr"] = or_null(e.check.guards_expr);
        x["pass"] = e.check.pass;
        x["failing"] = or_null(e.check.failing);
        if (e.check.error) x["error"] = *e.check.error;
        x["mtime_ns"] = or_null(e.mtime_ns);
        x["written_after_miss"] = e.written_after;
        j["entries"].push_back(std::move(x));
    }
    if (!g.note.empty()) j["note"] = g.note;
    return j;
}

bool same_compile(const CacheEvent& a, const CacheEvent& b) {
    if (a.compile && b.compile) return *a.compile == *b.compile;
    return !a.compile && !b.compile && a.log == b.log && !a.compile_id.empty() && a.compile_id == b.compile_id;
}

// An AOT event records no cache_event_time; its compile's first FX event does, and AOT entries
// written at or after it were written by this compile (or later): the bound for "written after".
CacheEvent with_fx_time(const TraceRun& run, const CacheEvent& aot) {
    CacheEvent e = aot;
    if (e.event_time_ns) return e;
    for (const auto& f : run.events)
        if (f.cache == "fx_graph" && f.event_time_ns && same_compile(f, aot) &&
            (!e.event_time_ns || *f.event_time_ns < *e.event_time_ns))
            e.event_time_ns = f.event_time_ns;
    return e;
}

// The AOT event of a compile and its FX events (forward, backward): "fx_events" on the AOT event,
// "aot_event" on each FX one. Compile ids repeat within a log (dynamo resets), so the compile is the
// one the records were read in (TraceRun::compiles), or, outside any, the same log and compile id.
void link_compiles(const TraceRun& run, const std::vector<std::size_t>& fx_pos, const std::vector<std::size_t>& aot_pos,
                   ojson& events) {
    std::vector<const CacheEvent*> ordered;
    for (const auto& e : run.events)
        if (e.cache == "fx_graph" || e.cache == "aotautograd") ordered.push_back(&e);
    for (std::size_t a : aot_pos) {
        ojson fx = ojson::array();
        for (std::size_t f : fx_pos)
            if (same_compile(*ordered[a], *ordered[f])) {
                fx.push_back(events[f]["index"]);
                if (!events[f].contains("aot_event")) events[f]["aot_event"] = events[a]["index"];
            }
        events[a]["fx_events"] = std::move(fx);
    }
}

}  // namespace

GuardMissExplanation explain_guard_miss(const CacheEvent& event, const TraceCompile* compile,
                                        const inductor::OpenedRoot& root, bool write_times_known) {
    GuardMissExplanation g;
    if (event.key.size() < 3) {
        g.note = "the event names no key";
        return g;
    }
    if (!is_plain_file_name(event.key)) {  // the trace's text: it names a key dir only as it is
        g.note = "the event's key is not a file name";
        return g;
    }
    // FX key dirs are sharded by the key's 2nd and 3rd characters; AOT key dirs are not.
    std::filesystem::path rel = event.cache == "aotautograd"
                                    ? std::filesystem::path("aotautograd") / event.key
                                    : std::filesystem::path("fxgraph") / event.key.substr(1, 2) / event.key;
    g.key_dir = rel.generic_string();
    std::vector<std::int64_t> sizes;
    std::vector<std::string> syms = inductor::guard_symbols(event.components);
    for (std::size_t i = 0; i < syms.size(); ++i) {
        GuardSymbolValue v{"t" + std::to_string(i), syms[i], std::nullopt, {}};
        if (const TraceSymbol* s = compile ? compile->find_symbol(syms[i]) : nullptr) {
            v.value = parse_int(s->value);
            v.source = s->source;
        }
        if (v.value) sizes.push_back(*v.value);
        g.symbols.push_back(std::move(v));
    }
    if (sizes.size() != syms.size()) {
        g.note = compile ? "the trace has no create_symbol value for every guard symbol of this compile"
                         : "the event is not inside a compile of the trace (no dynamo_start before it)";
        return g;
    }
    auto lookup = inductor::lookup_guards(root, g.key_dir, sizes);
    if (!lookup) {
        g.note = lookup.error().str();
        return g;
    }
    for (auto& c : lookup->entries) {
        auto mtime = write_times_known ? inductor::mtime_ns_beneath(root, g.key_dir + "/" + c.file) : std::nullopt;
        GuardMissEntry e{std::move(c), mtime, false};
        e.written_after = e.mtime_ns && event.event_time_ns && *e.mtime_ns >= *event.event_time_ns;
        g.entries.push_back(std::move(e));
    }
    return g;
}

ojson misses_to_json(const TraceRun& run, const inductor::OpenedRoot* root, const KeyedEntries* cached) {
    ojson out;
    out["events"] = ojson::array();
    std::size_t fx_index = 0, aot_index = 0;
    // Where each compile's FX and AOT events went in the report, to link them.
    std::vector<std::size_t> fx_pos, aot_pos;
    for (const auto& e : run.events) {
        const bool aot = e.cache == "aotautograd";
        if (e.cache != "fx_graph" && !aot) continue;
        const TraceCompile* c = e.compile ? &run.compiles[*e.compile] : nullptr;
        ojson j;
        // FX events are numbered as LOG#N names them (diff, show); AOT events have their own count.
        j["index"] = aot ? aot_index++ : fx_index++;
        j["cache"] = e.cache;
        j["label"] = aot ? "AOT" : "FX";
        j["log"] = e.log;
        j["line"] = e.line;
        j["pid"] = e.pid;
        j["compile_id"] = e.compile_id;
        j["function"] = c ? ojson(c->function) : ojson(nullptr);
        j["file"] = c ? ojson(c->file) : ojson(nullptr);
        j["first_line"] = c ? or_null(c->first_line) : ojson(nullptr);
        if (c && !c->user_file.empty())
            j["user_frame"] = {{"function", c->user_function},
                               {"file", c->user_file},
                               {"line", or_null(c->user_line)},
                               {"code", c->user_code}};
        j["key"] = e.key;
        j["state"] = e.state;
        j["class"] = miss_class(e);
        j["time"] = e.timestamp;
        j["local_time"] = local_time_label(e.timestamp);
        j["event_time_ns"] = or_null(e.event_time_ns);
        j["time_taken_ns"] = or_null(e.time_taken_ns);
        j["time_saved_ns"] = or_null(e.time_saved_ns);
        if (!e.guard_expr.empty()) j["guard_expr"] = e.guard_expr;
        if (!e.reason.empty()) j["reason"] = e.reason;
        const std::string cls = j["class"];
        if (cls == "guard miss" && root) {
            j["guard_miss"] = guard_miss_json(
                explain_guard_miss(aot ? with_fx_time(run, e) : e, c, *root, !cached || cached->write_times_known));
        } else if (e.state == "miss" && aot) {
            // AOT key components hash the FX graph and its inputs; its FX event says what changed there.
            j["note"] = "no AOTAutograd entry under this key; the FX event of the same compile compares the graph";
        } else if (e.state == "miss" && cached) {
            MissExplanation m = explain_miss(e, *cached);
            j["closest"] = closest_json(m);
            if (!m.note.empty()) j["note"] = m.note;
        }
        (aot ? aot_pos : fx_pos).push_back(out["events"].size());
        out["events"].push_back(std::move(j));
    }
    link_compiles(run, fx_pos, aot_pos, out["events"]);
    out["gaps"] = ojson::array();  // parts of the logs left out: "log:lines: why"
    for (const auto& g : run.gaps) out["gaps"].push_back(g.str());
    if (cached) {
        out["entries_compared"] = cached->entries.size();
        out["skipped"] = cached->skipped;
    }
    return out;
}

}  // namespace kiln::trace
