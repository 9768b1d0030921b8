#pragma once
// The compile timeline of TORCH_TRACE logs (like tlparse's per-compile-id view): per process (one log
// file), each compile in order with its frame (function, file:line from `dynamo_start` and the `str`
// table), its compile id, the cache events inside it (FX graph and AOTAutograd hit / miss / bypass,
// with the miss kind and the guard or bypass reason), the time it took (`compilation_metrics`) and,
// for hits, the compile time saved (the entry's `_time_taken_ns`, which torch logs as time_saved_ns).
// Compile ids repeat within one log (torch._dynamo.reset() between scenarios), so a compile is the
// span from one `dynamo_start` record to the next, never an id. A backward that AOTAutograd compiles
// lazily, at its first call, is a compile of its own (kind "backward", the frame's compile id): it
// begins at its `entire_backward_compile` span and takes `bwd_compilation_metrics`'
// backward_cumulative_compile_time_us, so the time the model ran between the two is in neither, and
// the totals equal `kiln-cli startup`'s (the sum of the compile spans).
// Not startup/compile_spans (chromium_event spans nested into phase self times): no spans are read here.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.hpp"

namespace kiln::trace {

struct TimelineEvent {
    std::size_t line = 0;  // the record's line in the log
    std::string time;      // glog time "1126 01:16:45.677000"
    std::string cache;     // "fx_graph" or "aotautograd"
    std::string state;     // "hit", "miss", "bypass"
    std::string detail;    // cache_status_detailed: "hit", "full_miss" (no entry under the key), "guard_miss"
    std::string key;       // "f…" / "a…"; empty for bypasses without one
    std::string reason;    // guard_miss: the guards of the last entry that failed; bypass: why
    std::optional<std::int64_t> time_taken_ns;  // misses: how long compiling the graph took
    std::optional<std::int64_t> time_saved_ns;  // hits: the entry's recorded compile time
};

struct TimelineCompile {
    std::string kind = "frame";       // "frame", or "backward": a backward compiled at its first call
    std::string compile_id;           // "0/0", "0/1" (frame / recompile), "!1/0/0" under compiled autograd
    std::string function;             // the compiled frame's function, "" when the log has no dynamo_start for it
    std::string file;                 // its file (from the log's string table)
    int line = 0;                     // its def line
    std::size_t record_line = 0;      // the dynamo_start record's line (0: events before any)
    std::string start_time;           // glog time of dynamo_start
    std::optional<double> compile_s;  // compilation_metrics entire_frame_compile_time_s (a backward's:
                                      // bwd_compilation_metrics backward_cumulative_compile_time_us)
    std::string fail;                 // compilation_metrics fail_type: fail_reason, when it failed
    std::vector<TimelineEvent> events;

    std::size_t count(const char* cache, const char* state) const;
    // The FX hits' recorded compile times (AOT hits wrap the same): what compiling these graphs took when
    // they were cached, not a time measured in this process.
    std::int64_t saved_ns() const;
};

struct TimelineProcess {
    std::string log;     // the log file
    std::string label;   // the log's folder relative to what was read ("cold", "h100/trace/warm"), else its name
    std::string pid;     // from the glog header
    std::string rank;    // the distributed rank: the records' "rank", else `rank_N` in the log's name; "" if none
    std::string device;  // system_info[device] of its cache keys ("NVIDIA H100 80GB HBM3"); "" when none says
    std::vector<TimelineCompile> compiles;

    std::size_t count(const char* cache, const char* state) const;
    std::int64_t saved_ns() const;
    double compile_s() const;  // the compiles' total time, lazy backward compiles included
};

// What tells a process apart in a heading ("rank 1", "pid 123"; "pid ?" where the log names none),
// less what its label already says (read_compile_timelines adds "(pid 123)" to labels that clash):
// `kiln-cli timeline` and the Timeline view say each once.
std::vector<std::string> process_ids(const TimelineProcess& p);

struct CompileTimeline {
    std::vector<TimelineProcess> processes;  // in path order
    std::vector<std::string> warnings;       // logs that could not be read, parts skipped: "path[:lines]: reason"
};

// One log file, or every log under a directory (recursively, sorted). A directory whose files are
// all unreadable is an error; one bad log among others is a warning. A cache event whose payload
// is not JSON is an error naming the file and line, except at the end of a log (a truncated tail, or
// a log being written): that event is left out and named in the warnings, as skipped huge records are.
Result<CompileTimeline> read_compile_timeline(const std::filesystem::path& path_or_dir);

// Several directories as one timeline; with more than one, each process is labelled by its directory's
// folder too ("h100/cold", "h200/warm": the folder above a `trace` dir, else the dir's own name), and
// processes come in the order they ran (first compile's time). A directory that cannot be read is a warning.
// Labels that would still read alike (two ranks' logs in one folder) say the rank, else the pid, else the
// log's name: "c (rank 1)".
CompileTimeline read_compile_timelines(const std::vector<std::filesystem::path>& dirs);

// TORCH_TRACE directories kept beside a cache root, as the fixtures and torch's own layout keep them:
// <root>/../trace, <root>/../*/trace, <root>/../trace_* — the directories that hold logs, sorted.
std::vector<std::filesystem::path> find_trace_dirs(const std::filesystem::path& root);

// The frame that compiled each key (FX graph and AOTAutograd keys of every event): a readable name for
// a graph entry when the cache's TORCH_TRACE logs are at hand. The first compile naming a key wins.
struct FrameRef {
    std::string function, file;
    int line = 0;
    std::string label() const;  // "mm (gen_inductor_cache.py:94)"
};
std::map<std::string, FrameRef> frames_by_key(const CompileTimeline& t);
// The same from the TORCH_TRACE directories beside a cache root (find_trace_dirs); empty when none.
std::map<std::string, FrameRef> frames_beside_root(const std::filesystem::path& root);

// Where an event's key lives in a cache root: fxgraph/<k[1:3]>/<key> or aotautograd/<key>.
std::filesystem::path key_dir_in_root(const std::filesystem::path& root, const std::string& key);

// {"processes": [{"log", "label", "pid", "rank", "device", "counts": {"fx_graph": {"hit", "miss", "bypass"}, "aotautograd": {...}},
//   "saved_ns", "compile_s", "compiles": [{"kind", "compile_id", "function", "file", "line", "start_time", "compile_s",
//   "fail", "saved_ns", "events": [{"line", "time", "cache", "state", "detail", "key", "reason",
//   "time_taken_ns", "time_saved_ns"}]}]}], "warnings": [...]}
nlohmann::ordered_json to_json(const CompileTimeline& t);

}  // namespace kiln::trace
