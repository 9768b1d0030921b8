#include "startup/compile_spans.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <tuple>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "startup/phase_names.hpp"
#include "trace/trace_strings.hpp"

namespace kiln::startup {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxDepth = 4096;  // open spans per thread
constexpr std::size_t kMaxGaps = 64;     // per compile and per log: the first ones say enough
// Torch's chromium_event times are microseconds since the epoch (1.7e15 in 2024), and a compile lasts
// minutes. Past these bounds a number is corrupt or hostile: summed, it printed negative or infinite
// seconds and `"seconds": null` (issue 42, item 13), so the span or metric is dropped and named instead.
constexpr double kMaxTimestampUs = 1e17;  // the year 5138
constexpr double kMaxSpanSeconds = 1e7;   // 116 days: a span, a compile's metrics
constexpr double kSelfTimeSlackUs = 1;    // children longer than their parent by rounding only

// "1e+308", "-5": a number of a dropped item as the trace wrote it.
std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

bool plausible_seconds(double s) { return s >= 0 && s <= kMaxSpanSeconds; }

using trace::number_of;
using trace::str_of;

void add_gap(std::vector<std::string>& gaps, std::string text) {
    if (gaps.size() < kMaxGaps) gaps.push_back(std::move(text));
}

struct Open {
    std::string name;
    double ts = 0;
    double child_us = 0;
    bool root = false;
    json args;  // the begin event's args (autotune shape, kernel name)
};

class LogReader {
public:
    LogReader(ProcessSpans& out, const std::function<void(CompileSpans&&)>& hand_over)
        : out_(out), hand_over_(hand_over) {}

    void on_record(const trace::TraceRecord& r) {
        if (out_.first_time.empty()) out_.first_time = r.time;
        if (out_.pid == 0) out_.pid = r.pid;
        const std::string& h = r.header_json;
        if (h.compare(0, 19, "{\"chromium_event\": ") == 0) return on_chromium(r);
        if (h.compare(0, 24, "{\"compilation_metrics\": ") == 0) return on_metrics(h);
        if (h.compare(0, 8, "{\"str\": ") == 0) return on_string(h);
        if (h.find("\"dynamo_start\"") != std::string::npos) return on_start(h);
        if (h.find("\"artifact\"") != std::string::npos && h.find("_cache_") != std::string::npos) on_cache(r);
    }

    void finish() {
        for (auto& [tid, stack] : stacks_) {
            while (!stack.empty()) {
                const std::string name = stack.back().name;
                close_top(tid, last_ts_,
                          "span " + name + " has no end event: closed at the log's last timestamp (a truncated log?)");
            }
        }
        hand_over_done(out_.compiles.size());
    }

private:
    ProcessSpans& out_;
    const std::function<void(CompileSpans&&)>& hand_over_;
    std::map<std::string, std::tuple<std::string, std::string, int>> frames_;  // compile id -> its frame

    // Hands the first `n` compiles to the consumer (all of them are complete: the next one began).
    void hand_over_done(std::size_t n) {
        if (!hand_over_ || n == 0) return;
        for (std::size_t i = 0; i < n; ++i) hand_over_(std::move(out_.compiles[i]));
        out_.compiles.erase(out_.compiles.begin(), out_.compiles.begin() + static_cast<std::ptrdiff_t>(n));
    }
    std::unordered_map<std::int64_t, std::vector<Open>> stacks_;
    trace::TraceStrings strings_;
    std::optional<std::size_t> open_compile_;  // index into out_.compiles
    std::int64_t open_tid_ = 0;
    double last_ts_ = 0;
    // The open compile's last leaf compile_file (end us, seconds) and whether its first
    // async_compile.wait began: what tells the prefix header's preprocess from a library's compile.
    std::optional<std::pair<double, double>> last_cpp_;
    bool waited_ = false;
    std::map<std::string, std::pair<double, int>> precompiles_;  // op -> (seconds, exceptions), until its autotuning

    CompileSpans* current() { return open_compile_ ? &out_.compiles[*open_compile_] : nullptr; }

    void on_chromium(const trace::TraceRecord& r) {
        json e = json::parse(r.payload, nullptr, false);
        if (e.is_discarded() || !e.is_object()) {
            add_gap(out_.gaps, "line " + std::to_string(r.line) + ": a chromium_event without a complete payload");
            return;
        }
        const std::string name = str_of(e, "name"), ph = str_of(e, "ph");
        auto ts = number_of(e, "ts");
        if (name.empty() || !ts) return;
        std::int64_t tid = 0;
        if (auto t = e.find("tid"); t != e.end() && t->is_number_integer()) tid = t->get<std::int64_t>();
        if (*ts < 0 || *ts > kMaxTimestampUs) {
            add_gap(gaps_of(tid), "line " + std::to_string(r.line) + ": " + name + " at timestamp " + number_text(*ts) +
                                      " us, no time a trace was written; ignored");
            return;
        }
        last_ts_ = std::max(last_ts_, *ts);
        json args = e.contains("args") && e["args"].is_object() ? e["args"] : json::object();
        if (ph == "B") return begin(tid, name, *ts, std::move(args), r);
        if (ph == "E") return end(tid, name, *ts, args, r.line);
        if (ph == "X") {  // a complete event: its whole duration is its own
            auto dur = number_of(e, "dur");
            if (!dur) return;
            if (!plausible_seconds(*dur / 1e6)) {
                add_gap(gaps_of(tid), "line " + std::to_string(r.line) + ": span " + name + " lasting " +
                                          number_text(*dur) + " us (negative or over 116 days); dropped");
                return;
            }
            auto& stack = stacks_[tid];
            if (!stack.empty()) stack.back().child_us += *dur;
            if (CompileSpans* c = in_compile(tid)) {
                c->span_counts[name]++;
                c->phases[phase_of_span(name)] += *dur / 1e6;
            }
        }
    }

    CompileSpans* in_compile(std::int64_t tid) { return open_compile_ && tid == open_tid_ ? current() : nullptr; }

    // Where a problem with a span of `tid` is named: its compile's gaps, else the log's.
    std::vector<std::string>& gaps_of(std::int64_t tid) {
        CompileSpans* c = in_compile(tid);
        return c ? c->gaps : out_.gaps;
    }

    void begin(std::int64_t tid, const std::string& name, double ts, json args, const trace::TraceRecord& r) {
        auto& stack = stacks_[tid];
        if (stack.size() >= kMaxDepth) {
            add_gap(out_.gaps, "line " + std::to_string(r.line) + ": spans nested deeper than " +
                                   std::to_string(kMaxDepth) + "; " + name + " ignored");
            return;
        }
        const bool root = !open_compile_ && (name == "entire_frame_compile" || name == "entire_backward_compile");
        if (root) {
            // The compiles before this one are complete (their metrics come before the next compile):
            // with a consumer, they go now, so memory holds one compile whatever the log's length.
            for (const auto& done : out_.compiles)
                if (done.kind == "frame" && frames_.size() < 65536)
                    frames_[done.compile_id] = {done.function, done.file, done.line};
            hand_over_done(out_.compiles.size());
            CompileSpans c;
            c.kind = name == "entire_frame_compile" ? "frame" : "backward";
            c.compile_id = str_of(args, "compile_id");
            c.start_time = r.time;
            c.begin_us = c.end_us = ts;
            if (c.kind == "backward") {  // the frame whose backward this is
                if (auto f = frames_.find(c.compile_id); f != frames_.end())
                    std::tie(c.function, c.file, c.line) = f->second;
            }
            out_.compiles.push_back(std::move(c));
            open_compile_ = out_.compiles.size() - 1;
            open_tid_ = tid;
            last_cpp_.reset();
            waited_ = false;
        } else if (CompileSpans* c = in_compile(tid)) {
            c->span_counts[name]++;
            if (name == "async_compile.wait" && !waited_) {
                waited_ = true;
                note_prefix_header(*c, ts);
            }
        }
        stack.push_back(Open{name, ts, 0, root, std::move(args)});
    }

    void end(std::int64_t tid, const std::string& name, double ts, const json& args, std::size_t line) {
        auto& stack = stacks_[tid];
        std::size_t at = stack.size();
        while (at > 0 && stack[at - 1].name != name) --at;
        if (at == 0) {
            if (CompileSpans* c = in_compile(tid))
                add_gap(c->gaps, "an end event of " + name + " without its begin (line " + std::to_string(line) + ")");
            else
                add_gap(out_.gaps, "line " + std::to_string(line) + ": an end event of " + name + " without its begin");
            return;
        }
        while (stack.size() > at)
            close_top(tid, ts, "span " + stack.back().name + " has no end event: closed when " + name + " ended");
        close_top(tid, ts, {}, &args);
    }

    // Pops the innermost open span of `tid` at `ts`; `gap` names what was missing, if anything.
    void close_top(std::int64_t tid, double ts, const std::string& gap, const json* end_args = nullptr) {
        auto& stack = stacks_[tid];
        Open o = std::move(stack.back());
        stack.pop_back();
        const double dur = ts - o.ts;
        if (!plausible_seconds(dur / 1e6)) {
            // Out of order (an end before its begin) or absurdly long: no phase, parent or compile gets
            // its time; the parent keeps the time as its own, less its children's (counted already).
            const std::string why = "span " + o.name +
                                    (dur < 0 ? " ends " + number_text(-dur) + " us before it begins"
                                             : " lasts " + number_text(dur / 1e6) + " s (over 116 days)") +
                                    "; its time dropped";
            std::vector<std::string>& gaps = gaps_of(tid);
            if (!gap.empty()) add_gap(gaps, gap);
            add_gap(gaps, why);
            if (!stack.empty()) stack.back().child_us += o.child_us;
            if (o.root && open_compile_ && tid == open_tid_) open_compile_.reset();  // end_us stays its begin
            return;
        }
        if (!stack.empty()) stack.back().child_us += dur;
        if (o.root && open_compile_ && tid == open_tid_) {
            CompileSpans& c = *current();
            c.end_us = ts;
            if (!gap.empty()) add_gap(c.gaps, gap);
            open_compile_.reset();
            return;
        }
        CompileSpans* c = in_compile(tid);
        if (!c) {
            if (stack.empty() && o.name != "dynamo" && !o.root)
                out_.outside.push_back({o.name, str_of(o.args, "kernel_name"), phase_of_span(o.name), dur / 1e6});
            if (!gap.empty() && o.name != "dynamo") add_gap(out_.gaps, gap);
            return;
        }
        double self_us = dur - o.child_us;
        if (self_us < -kSelfTimeSlackUs) {  // children out of order: longer than the span holding them
            add_gap(c->gaps, "span " + o.name + "'s children last " + number_text(-self_us) +
                                 " us longer than it (out of order); its own time counted as 0");
            self_us = 0;
        }
        c->phases[phase_of_span(o.name)] += self_us / 1e6;
        if (o.name == "compile_file" && o.child_us == 0) last_cpp_ = {ts, self_us / 1e6};
        if (!gap.empty()) add_gap(c->gaps, gap);
        note_span(*c, o, dur, end_args ? *end_args : json::object());
    }

    // Torch 2.11 preprocesses its C++ prefix header (g++ -E, to key the precompiled header) once per
    // process that loads a CPU graph, libraries kept or not, just before the graph's first
    // async_compile.wait: seen by a compiler wrapper on an H200 host (bench/RESULTS.md). That
    // compile_file is the header's, not a library's: its seconds get their own phase. Where the
    // precompiled header itself is built there (<default root>/precompiled_headers lacked it), the
    // span is a compile of seconds and stays one: the preprocess took 0.18-0.4 s, the build 4.7-6 s.
    void note_prefix_header(CompileSpans& c, double wait_begin_us) {
        constexpr double kAdjacentUs = 100'000, kPreprocessMaxSeconds = 1.0;
        if (!last_cpp_ || wait_begin_us - last_cpp_->first > kAdjacentUs || wait_begin_us < last_cpp_->first ||
            last_cpp_->second > kPreprocessMaxSeconds)
            return;
        if ((c.phases["C++ compile"] -= last_cpp_->second) <= 1e-9) c.phases.erase("C++ compile");
        c.phases[std::string(kPrefixHeaderPhase)] += last_cpp_->second;
        c.prefix_header_preprocesses++;
        last_cpp_.reset();
    }

    // What a span says beyond its time: autotuning (op, shape, choices), coordinate descent's kernel.
    void note_span(CompileSpans& c, const Open& o, double dur_us, const json& end_args) {
        static const std::string kAutotune = "_template_autotuning", kPrecompile = "_template_precompiling";
        auto ends_with = [](const std::string& s, const std::string& t) {
            return s.size() > t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
        };
        if (ends_with(o.name, kPrecompile)) {
            int errors = 0;
            json meta = json::parse(str_of(end_args, "metadata"), nullptr, false);
            if (meta.is_object() && meta.contains("exceptions") && meta["exceptions"].is_array())
                errors = static_cast<int>(meta["exceptions"].size());
            auto& p = precompiles_[o.name.substr(0, o.name.size() - kPrecompile.size())];
            p.first += dur_us / 1e6;
            p.second += errors;
        } else if (ends_with(o.name, kAutotune)) {
            AutotuneRun a;
            a.op = o.name.substr(0, o.name.size() - kAutotune.size());
            const json& args = end_args.empty() ? o.args : end_args;
            a.shape = str_of(args, "autotune_shape_hinted");
            if (a.shape.empty()) a.shape = str_of(args, "autotune_shape");
            a.dtypes = str_of(args, "autotune_dtypes");
            json stats = json::parse(str_of(args, "autotune_choices_stats"), nullptr, false);
            if (stats.is_object()) {
                a.choices = trace::non_negative_int(number_of(stats, "num_choices").value_or(0));
                a.triton_choices = trace::non_negative_int(number_of(stats, "num_triton_choices").value_or(0));
                a.best = str_of(stats, "best_kernel");
            }
            a.autotune_seconds = dur_us / 1e6;
            if (auto p = precompiles_.find(a.op); p != precompiles_.end()) {
                a.precompile_seconds = p->second.first;
                a.precompile_errors = p->second.second;
                precompiles_.erase(p);
            }
            c.autotunes.push_back(std::move(a));
        } else if (o.name == "CachingAutotuner.coordinate_descent_tuning") {
            c.coordesc_kernels.push_back(str_of(o.args, "kernel_name"));
        }
    }

    void on_metrics(const std::string& h) {
        json meta = json::parse(h, nullptr, false);
        if (meta.is_discarded() || !meta["compilation_metrics"].is_object()) return;
        const json& m = meta["compilation_metrics"];
        const std::string id = str_of(m, "compile_id");
        // The frame compile it closes: the latest one with this id (or none named) and no metrics yet.
        for (auto it = out_.compiles.rbegin(); it != out_.compiles.rend(); ++it) {
            if (it->kind != "frame" || it->metrics_seconds || it->metrics_dropped) continue;
            if (!id.empty() && !it->compile_id.empty() && it->compile_id != id) continue;
            it->metrics_seconds = number_of(m, "entire_frame_compile_time_s");
            if (it->metrics_seconds && !plausible_seconds(*it->metrics_seconds)) {
                add_gap(it->gaps, "compilation_metrics entire_frame_compile_time_s of " +
                                      number_text(*it->metrics_seconds) +
                                      " s (negative or over 116 days) dropped: seconds from the "
                                      "entire_frame_compile span");
                it->metrics_seconds.reset();
                it->metrics_dropped = true;
            }
            it->recompile_reason = str_of(m, "recompile_reason");
            if (auto t = number_of(m, "triton_compile_time_us")) {
                if (plausible_seconds(*t / 1e6)) it->triton_compile_us = static_cast<std::int64_t>(*t);
                else
                    add_gap(it->gaps, "compilation_metrics triton_compile_time_us of " + number_text(*t) +
                                          " (negative or over 116 days) dropped");
            }
            if (it->function.empty()) {
                it->function = str_of(m, "co_name");
                it->file = str_of(m, "co_filename");
                it->line = trace::non_negative_int(number_of(m, "co_firstlineno").value_or(0));
            }
            if (it->compile_id.empty()) it->compile_id = id;
            return;
        }
    }

    void on_string(const std::string& h) {
        json meta = json::parse(h, nullptr, false);
        if (meta.is_discarded()) return;
        strings_.add(meta["str"]);
    }

    void on_start(const std::string& h) {
        CompileSpans* c = current();
        if (!c) return;
        json meta = json::parse(h, nullptr, false);
        if (meta.is_discarded() || !meta.is_object()) return;
        const json& start = meta["dynamo_start"];
        if (!start.is_object() || !start.contains("stack") || !start["stack"].is_array() || start["stack"].empty())
            return;
        const json& frame = start["stack"].back();
        if (!frame.is_object()) return;
        c->function = str_of(frame, "name");
        c->line = trace::non_negative_int(number_of(frame, "line").value_or(0));
        c->file = strings_.file_of(frame);
    }

    void on_cache(const trace::TraceRecord& r) {
        std::vector<trace::CacheEvent> events;
        auto st = trace::append_cache_event(r, out_.log, events);
        if (!st) {
            add_gap(out_.gaps, st.error().str());
            return;
        }
        if (events.empty()) return;
        CompileSpans* c = current();
        if (!c && !out_.compiles.empty()) c = &out_.compiles.back();
        if (c) c->events.push_back(std::move(events.front()));
    }
};

}  // namespace

Result<ProcessSpans> read_process_spans(const std::filesystem::path& log,
                                        const std::function<void(CompileSpans&&)>& on_compile) {
    ProcessSpans out;
    out.log = log.string();
    LogReader reader(out, on_compile);
    KILN_CHECK(trace::for_each_trace_record(log, [&](const trace::TraceRecord& r) {
        reader.on_record(r);
        return true;
    }));
    reader.finish();
    return out;
}

}  // namespace kiln::startup
