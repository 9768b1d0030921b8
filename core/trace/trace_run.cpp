#include "trace/trace_run.hpp"

#include <map>

#include <nlohmann/json.hpp>

#include "trace/trace_strings.hpp"

namespace kiln::trace {

namespace {

using nlohmann::json;

std::string string_field(const json& j, const char* k) {
    auto it = j.find(k);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::int64_t> int_of(const json& j, const char* k) {
    auto it = j.find(k);
    return it != j.end() && it->is_number_integer() ? std::optional<std::int64_t>(it->get<std::int64_t>())
                                                    : std::nullopt;
}

// The state of one log while its records stream by.
struct LogState {
    std::string log;
    TraceStrings strings;
    std::map<std::string, std::size_t> open;  // compile id -> latest compile (index into TraceRun)
    TraceRun& run;

    std::optional<std::size_t> compile_of(const std::string& id) const {
        auto it = open.find(id);
        return it == open.end() ? std::nullopt : std::optional<std::size_t>(it->second);
    }

    void on_dynamo_start(const TraceRecord& r, const json& meta, const json& v) {
        TraceCompile c;
        c.log = log;
        c.line = r.line;
        c.pid = r.pid;
        c.time = r.time;
        c.compile_id = record_compile_id(meta);
        if (auto st = v.find("stack"); st != v.end() && st->is_array() && !st->empty()) {
            const json& f = st->back();
            c.function = string_field(f, "name");
            c.first_line = int_of(f, "line");
            c.file = strings.file_of(f);
            bool from_torch = c.file.find("/site-packages/") != std::string::npos;
            for (std::size_t i = st->size(); from_torch && i-- > 0;) {
                const json& u = (*st)[i];
                std::string file = strings.file_of(u);
                if (file.empty() || file.find("/site-packages/") != std::string::npos) continue;
                c.user_function = string_field(u, "name");
                c.user_file = file;
                c.user_line = int_of(u, "line");
                c.user_code = string_field(u, "loc");
                break;
            }
        }
        open[c.compile_id] = run.compiles.size();
        run.compiles.push_back(std::move(c));
    }

    void on_create_symbol(const json& meta, const json& v) {
        auto c = compile_of(record_compile_id(meta));
        if (!c || !v.is_object()) return;
        TraceSymbol s{string_field(v, "symbol"), string_field(v, "val"), string_field(v, "source"),
                      string_field(v, "vr")};
        if (s.symbol.empty() || run.compiles[*c].symbols.size() >= 10000) return;
        run.compiles[*c].symbols.push_back(std::move(s));
    }
};

// The record's event name, read without decoding the whole header: `{"name": ...`.
std::string_view event_name(const std::string& header) {
    if (header.size() < 4 || header[0] != '{' || header[1] != '"') return {};
    std::size_t end = header.find('"', 2);
    return end == std::string::npos ? std::string_view() : std::string_view(header).substr(2, end - 2);
}

Status read_one(const std::filesystem::path& path, TraceRun& run) {
    LogState st{path.string(), {}, {}, run};
    Status failed = ok_status();
    KILN_CHECK(for_each_trace_record(
        path,
        [&](const TraceRecord& r) {
            std::string_view name = event_name(r.header_json);
            if (name == "str" || name == "dynamo_start" || name == "create_symbol") {
                json meta = json::parse(r.header_json, nullptr, false);
                if (meta.is_discarded() || !meta.is_object()) return true;
                const json& v = meta[std::string(name)];
                if (name == "str") st.strings.add(v);
                else if (name == "dynamo_start") st.on_dynamo_start(r, meta, v);
                else st.on_create_symbol(meta, v);
                return true;
            }
            std::size_t before = run.events.size();
            failed = append_cache_event(r, st.log, run.events, &run.gaps);
            if (!failed.ok()) return false;
            if (run.events.size() > before) {
                CacheEvent& e = run.events.back();
                // The payload's compile id may carry an attempt suffix the header lacks: match on the header's.
                json meta = json::parse(r.header_json, nullptr, false);
                std::string id = meta.is_object() ? record_compile_id(meta) : std::string();
                e.compile = st.compile_of(id.empty() ? e.compile_id : id);
            }
            return true;
        },
        &run.gaps));
    return failed;
}

}  // namespace

const TraceSymbol* TraceCompile::find_symbol(const std::string& symbol) const {
    for (auto it = symbols.rbegin(); it != symbols.rend(); ++it)
        if (it->symbol == symbol) return &*it;
    return nullptr;
}

Result<TraceRun> read_trace_run(const std::filesystem::path& log_or_dir) {
    KILN_TRY(auto files, trace_log_files(log_or_dir));
    TraceRun run;
    for (const auto& f : files) KILN_CHECK(read_one(f, run));
    return run;
}

std::string local_time_label(const std::string& glog_time) {
    // "MMDD HH:MM:SS.uuuuuu"
    if (glog_time.size() < 17 || glog_time[4] != ' ') return glog_time;
    return glog_time.substr(0, 2) + "-" + glog_time.substr(2, 2) + " " + glog_time.substr(5, 12);
}

}  // namespace kiln::trace
