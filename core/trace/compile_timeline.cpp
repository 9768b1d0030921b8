#include "trace/compile_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "trace/trace_log.hpp"
#include "trace/trace_strings.hpp"
#include "util/path_component.hpp"
#include "util/regular_file.hpp"

namespace kiln::trace {

namespace {

using nlohmann::json;

// What read_trace_log does not keep of a cache event: the guards of a guard miss, an AOT hit's saving.
struct EventExtra {
    std::string guard_expr;
    std::optional<double> saved_ms;
};

struct LogReader {
    std::map<std::size_t, EventExtra> extras;  // by record line
    TraceStrings strings;
    TimelineProcess process;

    TimelineCompile& current() {
        if (process.compiles.empty()) process.compiles.emplace_back();  // events before any dynamo_start
        return process.compiles.back();
    }

    void on_record(const TraceRecord& r) {
        const std::string& h = r.header_json;
        // Cheap filters first: a log has thousands of records, a handful of which matter here.
        const bool is_str = h.compare(0, 8, "{\"str\": ") == 0;
        const bool is_start = h.find("\"dynamo_start\"") != std::string::npos;
        const bool is_metrics = h.compare(0, 24, "{\"compilation_metrics\": ") == 0;
        const bool is_bwd_metrics = h.compare(0, 28, "{\"bwd_compilation_metrics\": ") == 0;
        const bool is_cache = h.find("\"artifact\"") != std::string::npos && h.find("_cache_") != std::string::npos;
        if (h.compare(0, 19, "{\"chromium_event\": ") == 0 &&
            r.payload.find("\"entire_backward_compile\"") != std::string::npos)
            return on_backward_span(r);
        if (!is_str && !is_start && !is_metrics && !is_bwd_metrics && !is_cache) return;
        json meta = json::parse(h, nullptr, false);
        if (meta.is_discarded() || !meta.is_object()) return;
        if (is_str) return strings.add(meta["str"]);
        if (is_start) return on_start(r, meta);
        if (is_metrics) return on_metrics(meta);
        if (is_bwd_metrics) return on_bwd_metrics(meta);
        on_cache(r);
    }

    // A lazy backward compile begins: a compile of its own, named after its frame (the latest frame
    // compile with its compile id), so its cache events and time are not the forward's.
    void on_backward_span(const TraceRecord& r) {
        json e = json::parse(r.payload, nullptr, false);
        if (e.is_discarded() || !e.is_object() || str_of(e, "name") != "entire_backward_compile" ||
            str_of(e, "ph") != "B")
            return;
        TimelineCompile c;
        c.kind = "backward";
        c.compile_id = e.contains("args") && e["args"].is_object() ? str_of(e["args"], "compile_id") : std::string();
        c.record_line = r.line;
        c.start_time = r.time;
        for (auto it = process.compiles.rbegin(); it != process.compiles.rend(); ++it)
            if (it->kind == "frame" && it->compile_id == c.compile_id) {
                c.function = it->function;
                c.file = it->file;
                c.line = it->line;
                break;
            }
        process.compiles.push_back(std::move(c));
    }

    void on_bwd_metrics(const json& meta) {
        const json& m = meta["bwd_compilation_metrics"];
        if (!m.is_object()) return;
        auto us = number_of(m, "backward_cumulative_compile_time_us");
        if (!us || !process.compiles.size()) return;
        TimelineCompile& c = process.compiles.back();
        if (c.kind != "backward" || c.compile_s) return;  // no entire_backward_compile span began it
        c.compile_s = *us / 1e6;
        if (std::string type = str_of(m, "fail_type"); !type.empty()) c.fail = type + ": " + str_of(m, "fail_reason");
    }

    void on_start(const TraceRecord& r, const json& meta) {
        if (process.rank.empty()) process.rank = str_of(meta, "rank");  // torch adds it under torch.distributed
        TimelineCompile c;
        c.compile_id = record_compile_id(meta);
        c.record_line = r.line;
        c.start_time = r.time;
        const json& start = meta["dynamo_start"];
        if (start.is_object() && start.contains("stack") && start["stack"].is_array() && !start["stack"].empty()) {
            const json& frame = start["stack"].back();  // the compiled function (its def line)
            if (frame.is_object()) {
                c.function = str_of(frame, "name");
                if (auto line = number_of(frame, "line")) c.line = non_negative_int(*line);
                c.file = strings.file_of(frame);
            }
        }
        process.compiles.push_back(std::move(c));
    }

    void on_metrics(const json& meta) {
        const json& m = meta["compilation_metrics"];
        if (!m.is_object()) return;
        auto frame = std::find_if(process.compiles.rbegin(), process.compiles.rend(),
                                  [](const TimelineCompile& c) { return c.kind == "frame"; });
        TimelineCompile& c = frame == process.compiles.rend() ? current() : *frame;
        c.compile_s = number_of(m, "entire_frame_compile_time_s");
        if (c.compile_id.empty()) c.compile_id = str_of(m, "compile_id");
        if (c.function.empty()) {
            c.function = str_of(m, "co_name");
            c.file = str_of(m, "co_filename");
            if (auto line = number_of(m, "co_firstlineno")) c.line = non_negative_int(*line);
        }
        if (std::string type = str_of(m, "fail_type"); !type.empty()) c.fail = type + ": " + str_of(m, "fail_reason");
    }

    void on_cache(const TraceRecord& r) {
        json p = json::parse(r.payload, nullptr, false);
        if (p.is_discarded() || !p.is_object()) return;  // read_trace_log reports it
        EventExtra e;
        e.guard_expr = str_of(p, "cache_status_guard_expr");
        e.saved_ms = number_of(p, "time_saved_ms");
        extras[r.line] = std::move(e);
    }
};

// "V1126 01:16:45.677000 1031 torch/...": the pid, which TraceRecord does not keep, from the first line.
std::string pid_of_log(const std::filesystem::path& log) {
    auto file = open_regular_file(log);  // the one way to read a log: no FIFO, no atime update
    auto head = file ? read_prefix(*file, 4097, log.string()) : Result<std::string>(file.error());
    if (!head) return {};
    std::string line = head->substr(0, head->find('\n'));
    if (line.size() > 4096) return {};
    std::size_t a = line.find(' ');
    std::size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
    std::size_t c = b == std::string::npos ? b : line.find(' ', b + 1);
    if (c == std::string::npos) return {};
    std::string pid = line.substr(b + 1, c - b - 1);
    return !pid.empty() && pid.find_first_not_of("0123456789") == std::string::npos ? pid : std::string();
}

// "[hash] system_info[device]: {'name': 'NVIDIA H100 80GB HBM3'}" among a key's components -> the name.
std::string device_of(const CacheEvent& ce) {
    static const std::string tag = "system_info[device]: {'name': '";
    for (const auto& c : ce.components) {
        auto at = c.find(tag);
        if (at == std::string::npos) continue;
        auto end = c.find('\'', at + tag.size());
        if (end != std::string::npos) return c.substr(at + tag.size(), end - at - tag.size());
    }
    return {};
}

// "dedicated_log_torch_trace_rank_1_ab12cd.log" -> "1" (torch names a rank's log so); "" otherwise.
std::string rank_of_log_name(const std::filesystem::path& log) {
    const std::string name = log.filename().string();
    auto at = name.find("rank_");
    if (at == std::string::npos) return {};
    auto end = name.find_first_not_of("0123456789", at + 5);
    return end == at + 5 ? std::string() : name.substr(at + 5, end - at - 5);
}

TimelineEvent to_timeline_event(const CacheEvent& ce, const EventExtra* extra) {
    TimelineEvent e;
    e.line = ce.line;
    e.time = ce.timestamp;
    e.cache = ce.cache;
    e.state = ce.state;
    e.detail = ce.status_detailed;
    e.key = ce.key;
    // A hit's guard expression is the served entry's; only a miss's explains something.
    if (ce.state == "bypass") e.reason = ce.reason;
    else if (ce.state == "miss" && extra) e.reason = extra->guard_expr;
    e.time_taken_ns = ce.time_taken_ns;
    e.time_saved_ns = ce.time_saved_ns;
    if (!e.time_saved_ns && extra && extra->saved_ms)
        e.time_saved_ns = static_cast<std::int64_t>(std::llround(*extra->saved_ms * 1e6));
    return e;
}

Result<TimelineProcess> read_process(const std::filesystem::path& log, std::vector<std::string>& warnings) {
    std::vector<TraceGap> gaps;
    KILN_TRY(auto events, read_trace_log(log, &gaps));
    for (const auto& g : gaps) warnings.push_back(g.str());
    LogReader reader;
    KILN_CHECK(for_each_trace_record(log, [&](const TraceRecord& r) {
        reader.on_record(r);
        return true;
    }));
    TimelineProcess p = std::move(reader.process);
    p.log = log.string();
    p.pid = pid_of_log(log);
    if (p.rank.empty()) p.rank = rank_of_log_name(log);
    for (const auto& ce : events)
        if (p.device.empty()) p.device = device_of(ce);
    // Each event goes to the compile whose dynamo_start (or, for a lazy backward, entire_backward_compile
    // span) precedes it.
    for (const auto& ce : events) {
        auto it = std::upper_bound(p.compiles.begin(), p.compiles.end(), ce.line,
                                   [](std::size_t line, const TimelineCompile& c) { return line < c.record_line; });
        if (it == p.compiles.begin()) {
            // Events before any dynamo_start belong to a placeholder compile (record_line 0). Not
            // insert(begin(), {}): that inserts an empty initializer list, i.e. nothing.
            if (p.compiles.empty() || p.compiles.front().record_line != 0) p.compiles.emplace(p.compiles.begin());
            it = p.compiles.begin();
        } else {
            --it;
        }
        auto extra = reader.extras.find(ce.line);
        it->events.push_back(to_timeline_event(ce, extra == reader.extras.end() ? nullptr : &extra->second));
    }
    return p;
}

std::string label_of(const std::filesystem::path& log, const std::filesystem::path& base, bool base_is_dir) {
    if (!base_is_dir) return log.parent_path().filename().string();
    std::filesystem::path rel = log.parent_path().lexically_relative(base);
    std::string s = rel.generic_string();
    if (s.empty() || s == ".") return base.filename().string();
    return s;
}

}  // namespace

std::size_t TimelineCompile::count(const char* cache, const char* state) const {
    return static_cast<std::size_t>(std::count_if(
        events.begin(), events.end(), [&](const TimelineEvent& e) { return e.cache == cache && e.state == state; }));
}

std::int64_t TimelineCompile::saved_ns() const {
    std::int64_t total = 0;
    for (const auto& e : events)
        if (e.cache == "fx_graph" && e.state == "hit" && e.time_saved_ns) total += *e.time_saved_ns;
    return total;
}

std::size_t TimelineProcess::count(const char* cache, const char* state) const {
    std::size_t n = 0;
    for (const auto& c : compiles) n += c.count(cache, state);
    return n;
}

std::int64_t TimelineProcess::saved_ns() const {
    std::int64_t total = 0;
    for (const auto& c : compiles) total += c.saved_ns();
    return total;
}

double TimelineProcess::compile_s() const {
    double total = 0;
    for (const auto& c : compiles) total += c.compile_s.value_or(0.0);
    return total;
}

namespace {
// Processes in the order they ran: the first compile's glog time ("MMDD HH:MM:SS.us" sorts as text),
// not the order of their folders' names (cold, warm, changed would read changed, cold, warm).
void in_run_order(CompileTimeline& t) {
    auto started = [](const TimelineProcess& p) {
        return p.compiles.empty() ? std::string() : p.compiles.front().start_time;
    };
    std::stable_sort(t.processes.begin(), t.processes.end(),
                     [&](const TimelineProcess& a, const TimelineProcess& b) { return started(a) < started(b); });
}
}  // namespace

Result<CompileTimeline> read_compile_timeline(const std::filesystem::path& path_or_dir) {
    std::error_code ec;
    if (!std::filesystem::exists(path_or_dir, ec))
        return make_error(Errc::not_found, "no such file or directory", path_or_dir.string(),
                          "give a TORCH_TRACE directory (TORCH_TRACE=<dir> when running torch)");
    const bool is_dir = std::filesystem::is_directory(path_or_dir, ec);
    KILN_TRY(auto files, trace_log_files(path_or_dir));
    CompileTimeline out;
    Error first;
    for (const auto& f : files) {
        auto p = read_process(f, out.warnings);
        if (!p.ok()) {
            if (!is_dir) return std::move(p.error());
            if (out.warnings.empty()) first = p.error();
            out.warnings.push_back(p.error().str());
            continue;
        }
        p->label = label_of(f, path_or_dir, is_dir);
        out.processes.push_back(std::move(p).value());
    }
    if (out.processes.empty() && !out.warnings.empty()) return first;
    if (out.processes.empty())
        return make_error(Errc::not_found, "no TORCH_TRACE logs", path_or_dir.string(),
                          "run torch with TORCH_TRACE=<dir> and open that directory");
    in_run_order(out);
    return out;
}

CompileTimeline read_compile_timelines(const std::vector<std::filesystem::path>& dirs) {
    CompileTimeline all;
    for (const auto& dir : dirs) {
        auto t = read_compile_timeline(dir);
        if (!t.ok()) {
            all.warnings.push_back(t.error().str());
            continue;
        }
        const auto name = dir.filename() == "trace" ? dir.parent_path().filename() : dir.filename();
        // A log right in the folder is labelled by the folder already: the one above names the run
        // ("h100/cold" for h100/trace/cold), never the folder twice ("cold/cold").
        auto up = dir.parent_path();
        if (up.filename() == "trace") up = up.parent_path();
        for (auto& p : t->processes) {
            if (dirs.size() > 1)
                p.label = p.label == name.string()
                              ? (up.filename().empty() ? p.label : up.filename().string() + "/" + p.label)
                              : name.string() + "/" + p.label;
            all.processes.push_back(std::move(p));
        }
        for (auto& w : t->warnings) all.warnings.push_back(std::move(w));
    }
    // Two processes read alike ("c/c" twice): tell them apart by rank, pid, then the log's name.
    auto alike = [&all](const TimelineProcess& p) {
        return std::count_if(all.processes.begin(), all.processes.end(),
                             [&](const TimelineProcess& q) { return q.label == p.label; }) > 1;
    };
    for (auto what : {0, 1, 2}) {
        std::vector<std::size_t> clash;
        for (std::size_t i = 0; i < all.processes.size(); ++i)
            if (alike(all.processes[i])) clash.push_back(i);
        for (std::size_t i : clash) {
            TimelineProcess& p = all.processes[i];
            const std::string tag = what == 0   ? (p.rank.empty() ? "" : "rank " + p.rank)
                                    : what == 1 ? (p.pid.empty() ? "" : "pid " + p.pid)
                                                : std::filesystem::path(p.log).filename().string();
            if (!tag.empty()) p.label += " (" + tag + ")";
        }
    }
    in_run_order(all);
    return all;
}

std::vector<std::string> process_ids(const TimelineProcess& p) {
    std::vector<std::string> out;
    auto add = [&](const std::string& id) {
        if (p.label.find("(" + id + ")") == std::string::npos) out.push_back(id);
    };
    if (!p.rank.empty()) add("rank " + p.rank);
    add("pid " + (p.pid.empty() ? std::string("?") : p.pid));
    return out;
}

std::vector<std::filesystem::path> find_trace_dirs(const std::filesystem::path& root) {
    namespace fs = std::filesystem;
    std::vector<fs::path> out;
    std::error_code ec;
    const fs::path parent = fs::absolute(root, ec).lexically_normal().parent_path();
    if (ec || parent.empty()) return out;
    auto holds_logs = [](const fs::path& dir) {
        std::error_code e;
        if (!fs::is_directory(dir, e)) return false;
        for (auto it = fs::recursive_directory_iterator(dir, e); !e && it != fs::recursive_directory_iterator();
             it.increment(e)) {
            if (it.depth() > 3) it.disable_recursion_pending();
            if (it->is_regular_file(e) && it->path().extension() == ".log") return true;
        }
        return false;
    };
    auto add = [&](const fs::path& dir) {
        if (holds_logs(dir)) out.push_back(dir);
    };
    add(parent / "trace");
    int seen = 0;  // bounded: a parent like /tmp may hold thousands of folders
    for (auto it = fs::directory_iterator(parent, ec); !ec && it != fs::directory_iterator() && seen < 256;
         it.increment(ec), ++seen) {
        std::error_code e;
        if (!it->is_directory(e)) continue;
        const std::string name = it->path().filename().string();
        if (name.rfind("trace_", 0) == 0) add(it->path());
        else if (it->path() != root && name != "trace") add(it->path() / "trace");
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string FrameRef::label() const {
    if (function.empty()) return {};
    std::string name = std::filesystem::path(file).filename().string();
    return name.empty() ? function : function + " (" + name + ":" + std::to_string(line) + ")";
}

std::map<std::string, FrameRef> frames_by_key(const CompileTimeline& t) {
    std::map<std::string, FrameRef> out;
    for (const auto& p : t.processes)
        for (const auto& c : p.compiles)
            for (const auto& e : c.events)
                if (!e.key.empty() && !c.function.empty()) out.try_emplace(e.key, FrameRef{c.function, c.file, c.line});
    return out;
}

std::map<std::string, FrameRef> frames_beside_root(const std::filesystem::path& root) {
    const auto dirs = find_trace_dirs(root);
    if (dirs.empty()) return {};
    return frames_by_key(read_compile_timelines(dirs));
}

std::filesystem::path key_dir_in_root(const std::filesystem::path& root, const std::string& key) {
    if (!is_plain_file_name(key)) return {};  // a key from the trace names a folder only as it is
    if (key.size() > 3 && key[0] == 'f') return root / "fxgraph" / key.substr(1, 2) / key;
    if (key.size() > 1 && key[0] == 'a') return root / "aotautograd" / key;
    return {};
}

nlohmann::ordered_json to_json(const CompileTimeline& t) {
    using oj = nlohmann::ordered_json;
    auto opt = [](const auto& v) { return v ? oj(*v) : oj(nullptr); };
    oj procs = oj::array();
    for (const auto& p : t.processes) {
        oj counts = oj::object();
        for (const char* cache : {"fx_graph", "aotautograd"})
            counts[cache] = {
                {"hit", p.count(cache, "hit")}, {"miss", p.count(cache, "miss")}, {"bypass", p.count(cache, "bypass")}};
        oj compiles = oj::array();
        for (const auto& c : p.compiles) {
            oj events = oj::array();
            for (const auto& e : c.events)
                events.push_back({{"line", e.line},
                                  {"time", e.time},
                                  {"cache", e.cache},
                                  {"state", e.state},
                                  {"detail", e.detail},
                                  {"key", e.key},
                                  {"reason", e.reason},
                                  {"time_taken_ns", opt(e.time_taken_ns)},
                                  {"time_saved_ns", opt(e.time_saved_ns)}});
            compiles.push_back({{"kind", c.kind},
                                {"compile_id", c.compile_id},
                                {"function", c.function},
                                {"file", c.file},
                                {"line", c.line},
                                {"start_time", c.start_time},
                                {"compile_s", opt(c.compile_s)},
                                {"fail", c.fail},
                                {"saved_ns", c.saved_ns()},
                                {"events", std::move(events)}});
        }
        procs.push_back({{"log", p.log},
                         {"label", p.label},
                         {"rank", p.rank},
                         {"device", p.device},
                         {"pid", p.pid},
                         {"counts", std::move(counts)},
                         {"saved_ns", p.saved_ns()},
                         {"compile_s", p.compile_s()},
                         {"compiles", std::move(compiles)}});
    }
    return {{"processes", std::move(procs)}, {"warnings", t.warnings}};
}

}  // namespace kiln::trace
