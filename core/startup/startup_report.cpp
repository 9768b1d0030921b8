#include "startup/startup_report.hpp"

#include <algorithm>
#include <map>

#include "inductor/debug_lines.hpp"
#include "startup/causes.hpp"
#include "trace/misses.hpp"
#include "util/regular_file.hpp"
#include "util/text_scan.hpp"

namespace kiln::startup {

namespace {

namespace fs = std::filesystem;
using trace::CacheEvent;
using trace::KeyedEntries;

constexpr std::size_t kPoolPerFrame = 4;   // FX events kept per frame to explain later misses
constexpr std::size_t kPoolFrames = 4096;  // frames kept: memory stays bounded on any input
constexpr std::size_t kValueChars = 100;   // a component's value in a cause

struct LogFile {
    fs::path path;
    std::string label;
    std::string first_time;  // the first record's glog time: logs are analyzed in the order they ran
};

// "V1126 01:16:45.677000 1031 ...": the time of a log's first line ("" when it has none). Opened as
// every log is (util/regular_file, as trace/ does): a FIFO or /dev/zero named as the log is refused at
// once when the log is read (never a blocked open or a 1 GB line here), and the atime stays (issue 42).
std::string first_glog_time(const fs::path& log) {
    constexpr std::size_t kHeadBytes = 256;  // the time ends well before: "V" + "mmdd hh:mm:ss.us"
    auto file = open_regular_file(log);
    if (!file) return {};
    auto head = read_prefix(*file, kHeadBytes, log.string());
    if (!head) return {};
    std::string line = head->substr(0, head->find('\n'));
    if (line.size() < 22) return {};
    std::size_t a = line.find(' ');
    std::size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
    return b == std::string::npos ? std::string() : line.substr(1, b - 1);
}

std::string dir_name(const fs::path& dir) {
    const fs::path d = dir.filename().empty() ? dir.parent_path() : dir;
    return d.filename() == "trace" ? d.parent_path().filename().string() : d.filename().string();
}

int rank_of(const fs::path& log) {
    // `rank[_-]?(\d{1,6})`, the first match in the file's name, then in its folder's.
    for (const auto& part : {log.filename().string(), log.parent_path().filename().string()}) {
        for (std::size_t at = part.find("rank"); at != std::string::npos; at = part.find("rank", at + 1)) {
            std::size_t digits = at + 4;
            if (digits < part.size() && (part[digits] == '_' || part[digits] == '-')) ++digits;
            const std::size_t end = std::min(scan::skip_digits(part, digits), digits + 6);
            if (end > digits) return std::stoi(part.substr(digits, end - digits));
        }
    }
    return -1;
}

std::string one_line(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    if (s.size() > kValueChars) s = s.substr(0, kValueChars) + "…";
    return s;
}

// "fmo2n45uv3b6…": a key dir named briefly (kiln-cli misses prints the whole entry path).
std::string brief_key(const std::string& key) { return key.size() > 12 ? key.substr(0, 12) + "…" : key; }

// The closest entry among the root's and the earlier processes' events of the same frame.
trace::MissExplanation closest(const CacheEvent& e, const KeyedEntries* root, const KeyedEntries* pool) {
    trace::MissExplanation best;
    best.note = "nothing cached to compare with";
    for (const KeyedEntries* set : {root, pool}) {
        if (!set || set->entries.empty()) continue;
        auto m = trace::explain_miss(e, *set);
        if (m.closest_path && (!best.closest_path || m.diff.distance() < best.diff.distance())) best = std::move(m);
    }
    return best;
}

MissInfo miss_info(const CacheEvent& e, const KeyedEntries* root, const KeyedEntries* pool) {
    MissInfo m;
    m.state = e.state;
    if (e.state == "bypass") {
        m.what = "FX graph cache bypassed" + (e.reason.empty() ? std::string() : ": " + one_line(e.reason));
        m.avoid = "FX graph cache bypasses";
        m.fix = "remove what makes Inductor bypass its cache (the reason above); every process compiles it again";
        m.remedy = "the bypass removed";
        return m;
    }
    const std::string cls = trace::miss_class(e);
    if (cls == "guard miss") {
        m.what = "FX graph guard miss: entries under the key, none of whose guards held" +
                 (e.guard_expr.empty() ? std::string() : " (last tried: " + one_line(e.guard_expr) + ")");
        m.avoid = "recompiles: no cached entry's guards held for these sizes";
        m.fix =
            "the entry compiled now covers these sizes from the next run on; if sizes vary run to run, mark the "
            "dimension dynamic so one entry covers them (kiln-cli misses shows the failing conjunct)";
        m.remedy = "an entry for these sizes cached";
        return m;
    }
    auto x = closest(e, root, pool);
    if (!root && (!pool || pool->entries.empty())) {
        m.what = "FX graph key miss: no cached entry under this key; no cache root or earlier process to compare with";
        m.avoid = "recompiles: FX graph key misses (--root ROOT says what changed)";
        m.fix =
            "run again with --root pointing at the cache the process used: the closest cached entry says which "
            "key component changed";
        m.remedy = "a hit";
        return m;
    }
    auto differs = [&](const std::string& name) {
        for (const auto& c : x.diff.changed)
            if (c.component == name) return true;
        return std::find(x.diff.only_a.begin(), x.diff.only_a.end(), name) != x.diff.only_a.end();
    };
    if (x.closest_path && differs("gm")) {  // the closest entry holds another graph: this one was never cached
        m.what = "FX graph key miss: no cached entry holds this graph (the closest, " + brief_key(*x.closest_key) +
                 ", is another graph)";
        m.avoid = "compiled from scratch: graphs no cache entry held";
        m.fix =
            "warm the cache before startup: ship it with the job (kiln-cli bundle pack, "
            "torch.compiler.save_cache_artifacts) or keep TORCHINDUCTOR_CACHE_DIR on persistent storage";
        m.remedy = "a warm cache shipped with the job";
        return m;
    }
    if (!x.closest_path || x.diff.distance() == 0) {
        m.what = "FX graph key miss: nothing cached before it to compare with (a cold cache)";
        m.avoid = "compiled from scratch: graphs no cache entry held";
        m.fix =
            "warm the cache before startup: ship it with the job (kiln-cli bundle pack, "
            "torch.compiler.save_cache_artifacts) or keep TORCHINDUCTOR_CACHE_DIR on persistent storage";
        m.remedy = "a warm cache shipped with the job";
        return m;
    }
    std::vector<std::string> names;
    for (const auto& c : x.diff.changed) names.push_back(c.component);
    for (const auto& n : x.diff.only_a) names.push_back(n);
    for (const auto& n : x.diff.only_b) names.push_back(n);
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < 3; ++i) list += (i ? ", " : "") + names[i];
    if (names.size() > 3) list += " and " + std::to_string(names.size() - 3) + " more";
    m.what = "FX graph key miss: " + list + " differ" + (names.size() == 1 ? "s" : "") +
             " from the closest cached entry, " + brief_key(*x.closest_key);
    const inductor::ChangedComponent* first = x.diff.changed.empty() ? nullptr : &x.diff.changed.front();
    auto changed = [&](const std::string& prefix) -> const inductor::ChangedComponent* {
        for (const auto& c : x.diff.changed)
            if (c.component.rfind(prefix, 0) == 0) return &c;
        return nullptr;
    };
    if (const auto* d = changed("system_info[device]")) first = d;
    if (first)
        m.what += " (" + first->component + ": cached " + one_line(first->b) + ", now " + one_line(first->a) + ")";
    if (changed("system_info[device]")) {
        m.avoid = "recompiles: the cache was written on another device, system_info[device]";
        m.fix =
            "FX graph entries are per device: warm the cache once on this device model, or ship a bundle built on "
            "it (kiln-cli portable says which entries hit where); would hit if system_info[device] were as cached";
        m.remedy = "a cache warmed on this device";
    } else if (const auto* c = changed("inductor_config[")) {
        m.avoid = "recompiles: an Inductor config changed, " + c->component;
        m.fix = "would hit with " + c->component + " = " + one_line(c->b) + " as when cached";
        m.remedy = "the cached config";
    } else if (changed("example_inputs")) {
        m.avoid = "recompiles: the graph's inputs changed";
        m.fix = "the inputs' shapes, strides or dtypes differ from the cached entry's: kiln-cli misses shows the diff";
        m.remedy = "the same inputs";
    } else {
        const std::string name = names.front();
        m.avoid = "recompiles: " + name + " changed";
        m.fix = "would hit if " + name + " were as when cached" + (first ? " (" + one_line(first->b) + ")" : "");
        m.remedy = "the key component as cached";
    }
    return m;
}

// The FX graph events of the processes read so far, per frame, to explain later misses without a root.
class EventPool {
public:
    const KeyedEntries* find(const std::string& frame) const {
        auto it = pools_.find(frame);
        return it == pools_.end() ? nullptr : &it->second;
    }
    void add(const std::string& frame, const std::string& label, const CacheEvent& e) {
        if (e.cache != "fx_graph" || e.key.empty() || e.components.empty()) return;
        if (!pools_.count(frame) && pools_.size() >= kPoolFrames) return;
        auto comps = inductor::parse_debug_lines(e.components);
        if (!comps || comps->empty()) return;
        auto& set = pools_[frame].entries;
        set.push_back({label + ": " + e.key.substr(0, 12) + "…", e.key, std::move(comps).value(), e.event_time_ns});
        if (set.size() > kPoolPerFrame) set.erase(set.begin());
    }

private:
    std::map<std::string, KeyedEntries> pools_;
};

std::string frame_key(const CompileSpans& c) { return c.function + "\t" + c.file + "\t" + std::to_string(c.line); }

// One log: each compile explained as soon as the reader hands it over (misses against the root and the
// processes read before), so memory holds one compile's spans and events, never the log's all.
Result<ProcessStartup> analyze_process(const LogFile& file, const KeyedEntries* root, EventPool& pool) {
    ProcessStartup p;
    p.label = file.label;
    p.rank = rank_of(file.path);
    std::vector<Claim> claims;
    std::vector<std::pair<std::string, CacheEvent>> for_pool;  // a few FX events per frame, for later processes
    std::map<std::string, int> pooled;
    auto on_compile = [&](CompileSpans&& c) {
        std::optional<MissInfo> miss;
        for (const auto& e : c.events)
            if (e.cache == "fx_graph" && (e.state == "miss" || e.state == "bypass")) {
                miss = miss_info(e, root, pool.find(frame_key(c)));
                break;
            }
        p.compiles.push_back(cost_of(c, miss, claims));
        p.compile_seconds += p.compiles.back().seconds;
        for (auto& e : c.events)
            if (e.cache == "fx_graph" && !e.components.empty() && pooled[frame_key(c)]++ < int(kPoolPerFrame))
                for_pool.push_back({frame_key(c), std::move(e)});
    };
    KILN_TRY(ProcessSpans spans, read_process_spans(file.path, on_compile));
    p.log = spans.log;
    p.pid = spans.pid ? std::to_string(spans.pid) : std::string();
    p.gaps = std::move(spans.gaps);
    for (const auto& [frame, e] : for_pool) pool.add(frame, p.label, e);
    // A first call's tuning span also holds what a first call does anyway (loading the kernel, the
    // benchmarker's set-up): on an H100 (torch 2.11, bench/gpu/startup_ab.sh) a 1.66 s coordinate-descent
    // span went with 0.45 s once the .best_config was kept. So its seconds are an upper bound, inferred.
    const std::string first_call_basis =
        "the span also holds work every first call does (loading the kernel, the benchmarker's set-up), "
        "which a run with the .best_config files pays outside any span; only an A/B run with them kept says "
        "how much goes";
    for (auto& o : spans.outside) {
        if (o.phase == "coordinate descent tuning")
            claims.push_back({"coordinate descent re-run at first calls, outside the compiles",
                              "keep the kernels' .best_config files with the cache (same Triton, config and source)",
                              "the .best_config files kept", o.seconds, true, first_call_basis});
        else if (o.phase == "autotuning: Triton configs")
            claims.push_back({"Triton configs benchmarked at first calls, outside the compiles",
                              "keep the kernels' .best_config files with the cache; fewer configs (max_autotune off)",
                              "the .best_config files kept", o.seconds, true, first_call_basis});
    }
    p.outside = std::move(spans.outside);
    p.avoidable = sum_claims(claims);
    return p;
}

}  // namespace

std::string CompileCost::label() const {
    std::string s = function.empty() ? std::string("(unknown frame)") : function;
    if (!file.empty()) s += " (" + fs::path(file).filename().string() + ":" + std::to_string(line) + ")";
    if (kind == "backward") s += " backward";
    return s + " " + compile_id;
}

std::string CompileCost::key() const { return kind + "\t" + function + "\t" + file + "\t" + compile_id; }

double CompileCost::phase_seconds(const std::string& name) const {
    for (const auto& p : phases)
        if (p.name == name) return p.seconds;
    return 0;
}

std::string AvoidableCost::text() const {
    if (inferred) return seconds_text(seconds) + " inferred: " + basis + " (" + what + ")";
    return seconds_text(seconds) + " would go with " + remedy + " (" + what + ")";
}

std::string ProcessStartup::headline() const {
    std::string s = "this process spent " + seconds_text(compile_seconds) + " compiling";
    std::size_t shown = 0;
    bool measured_shown = false;
    for (const auto& a : avoidable) {
        if (a.seconds < 0.01 || shown == 3) break;
        s += shown ? ", " : "; ";
        if (!a.inferred && measured_shown) s += seconds_text(a.seconds) + " with " + a.remedy + " (" + a.what + ")";
        else s += a.text();
        measured_shown |= !a.inferred;
        ++shown;
    }
    if (shown == 0) s += "; nothing the trace shows would remove it";
    return s;
}

std::optional<fs::path> root_beside(const std::vector<fs::path>& paths) {
    for (const auto& path : paths) {
        std::error_code ec;
        fs::path dir = fs::absolute(path, ec).lexically_normal();
        if (ec) continue;
        if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
        for (int up = 0; up < 4 && !dir.empty(); ++up, dir = dir.parent_path()) {
            if (fs::is_directory(dir / "inductor" / "fxgraph", ec)) return dir / "inductor";
            if (up > 0 && fs::is_directory(dir / "fxgraph", ec)) return dir;
            if (dir == dir.parent_path()) break;
        }
    }
    return std::nullopt;
}

Result<StartupReport> analyze_startup(const std::vector<fs::path>& paths, const StartupOptions& options) {
    StartupReport report;
    Error first;
    std::vector<LogFile> files;
    for (const auto& path : paths) {
        std::error_code ec;
        if (!fs::exists(path, ec)) {
            if (first.message.empty())
                first = make_error(Errc::not_found, "no such file or directory", path.string(),
                                   "give TORCH_TRACE logs or their directory (TORCH_TRACE=DIR when running torch)");
            report.warnings.push_back(first.str());
            continue;
        }
        const bool is_dir = fs::is_directory(path, ec);
        auto logs = trace::trace_log_files(path);
        if (!logs) {
            report.warnings.push_back(logs.error().str());
            continue;
        }
        for (const auto& log : *logs) {
            std::string label;
            if (is_dir) {
                std::string rel = log.parent_path().lexically_relative(path).generic_string();
                label = rel.empty() || rel == "." ? dir_name(path) : rel;
                if (paths.size() > 1 && !(rel.empty() || rel == ".")) label = dir_name(path) + "/" + label;
            } else {
                label = dir_name(log.parent_path());
            }
            files.push_back({log, label, first_glog_time(log)});
        }
    }
    std::stable_sort(files.begin(), files.end(),
                     [](const LogFile& a, const LogFile& b) { return a.first_time < b.first_time; });
    std::optional<KeyedEntries> root;
    if (const inductor::OpenedRoot* opened = options.root ? &*options.root : nullptr) {
        KILN_TRY(auto loaded, trace::load_keyed_entries(*opened));  // through the descriptor the command holds
        root = std::move(loaded);
        report.root = opened->path.string();
    } else if (options.find_root) {
        // The layout torch's own tools keep (trace/ beside the root): a root found by its path, read by it.
        if (auto beside = root_beside(paths)) {
            if (auto loaded = trace::load_keyed_entries(*beside)) {
                root = std::move(loaded).value();
                report.root = beside->string();
            }
        }
    }
    EventPool pool;
    for (const auto& f : files) {
        auto process = analyze_process(f, root ? &*root : nullptr, pool);
        if (!process) {
            if (first.message.empty()) first = process.error();
            report.warnings.push_back(process.error().str());
            continue;
        }
        report.processes.push_back(std::move(process).value());
        const ProcessStartup& p = report.processes.back();
        for (const auto& g : p.gaps) report.warnings.push_back(f.path.string() + ": " + g);
        for (const auto& c : p.compiles)
            for (const auto& g : c.gaps) report.warnings.push_back(f.path.string() + ": " + c.label() + ": " + g);
    }
    if (report.processes.empty()) {
        if (!first.message.empty()) return first;
        return make_error(Errc::not_found, "no TORCH_TRACE logs",
                          paths.empty() ? std::string() : paths.front().string(),
                          "run torch with TORCH_TRACE=<dir> and pass that directory");
    }
    return report;
}

nlohmann::ordered_json to_json(const StartupReport& r) {
    using oj = nlohmann::ordered_json;
    oj procs = oj::array();
    for (const auto& p : r.processes) {
        oj avoidable = oj::array();
        for (const auto& a : p.avoidable)
            avoidable.push_back({{"what", a.what},
                                 {"seconds", a.seconds},
                                 {"fix", a.fix},
                                 {"remedy", a.remedy},
                                 {"inferred", a.inferred},
                                 {"basis", a.basis},
                                 {"text", a.text()}});
        oj compiles = oj::array();
        for (const auto& c : p.compiles) {
            oj phases = oj::array();
            for (const auto& ph : c.phases)
                phases.push_back({{"name", ph.name},
                                  {"seconds", ph.seconds},
                                  {"cause", ph.cause},
                                  {"fix", ph.fix},
                                  {"inferred", ph.inferred},
                                  {"basis", ph.basis}});
            compiles.push_back({{"compile_id", c.compile_id},
                                {"function", c.function},
                                {"file", c.file},
                                {"line", c.line},
                                {"seconds", c.seconds},
                                {"unexplained_seconds", c.unexplained_seconds},
                                {"phases", std::move(phases)}});
        }
        procs.push_back({{"log", p.log},
                         {"compile_seconds", p.compile_seconds},
                         {"headline", p.headline()},
                         {"avoidable", std::move(avoidable)},
                         {"compiles", std::move(compiles)}});
    }
    return {{"processes", std::move(procs)}, {"warnings", r.warnings}};
}

}  // namespace kiln::startup
