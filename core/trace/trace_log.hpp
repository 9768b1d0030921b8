#pragma once
// TORCH_TRACE structured logs (docs/inductor-cache-format.md §10): the cache events in them.
// A record is a glog line `V<mmdd hh:mm:ss.us> <pid> <file>:<line>] {json}` followed by payload
// lines that start with a tab; cache events are artifacts named fx_graph_cache_hit|miss|bypass
// (and aotautograd_cache_*) whose payload is JSON with the key and its components.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "util/result.hpp"

namespace kiln::trace {

struct CacheEvent {
    std::string log;                            // the log file
    std::size_t line = 0;                       // 1-based line of the record's header
    std::string artifact;                       // "fx_graph_cache_miss", "aotautograd_cache_hit", ...
    std::string cache;                          // "fx_graph" or "aotautograd"
    std::string state;                          // "hit", "miss" or "bypass"
    std::string key;                            // empty when the payload has none (some bypasses)
    std::string compile_id;                     // "0/0", "1/0_1", ...
    std::string timestamp;                      // the glog time, "1126 01:17:33.288000"
    std::optional<std::int64_t> time_taken_ns;  // misses: compile time
    std::optional<std::int64_t> time_saved_ns;  // hits
    std::string status_detailed;                // "full_miss", "hit", ...
    std::string reason;                         // bypass reason, when given
    std::vector<std::string> components;        // debug lines of the key, one per component
    std::int64_t pid = 0;                       // the process that wrote the record (glog header)
    std::string guard_expr;                     // cache_status_guard_expr: hits, the served entry's guards;
                                                // guard misses, the last failing candidate's
    std::optional<std::int64_t> event_time_ns;  // cache_event_time (ns since the epoch), when recorded
    bool bundled = false;                       // fx_graph_bundled_cache_hit (the bundled AOT cache)
    std::optional<std::size_t> compile;         // index into TraceRun::compiles (read_trace_run only)
};

// One record of a log: the header's JSON (the event name and its metadata) and the payload
// (the tab-prefixed lines after it, joined with newlines).
struct TraceRecord {
    std::size_t line = 0;  // 1-based line of the header
    std::string time;      // "1126 01:17:33.288000"
    std::int64_t pid = 0;  // the writing process
    std::string header_json;
    std::string payload;
    bool last = false;  // no record follows it in the log (a cut-off log ends inside this one)
};

// A record's header and payload together are kept up to this size; a larger one is skipped (named as
// a gap), so a hostile or huge log costs bounded memory however long its lines are.
inline constexpr std::size_t kMaxTraceRecordBytes = 64u << 20;

// A part of a log that a reader skipped, and why: an over-long record, or the cache event a cut-off log
// ends in. The rest of the log is still read.
struct TraceGap {
    std::string log;
    std::size_t first_line = 0, last_line = 0;
    std::string why;
    std::string str() const;  // "LOG:FIRST-LAST: WHY"
};

// Calls `fn` for every record of one log, in order; a false return stops the walk. Lines that are
// neither a glog header with JSON nor payload are skipped; records over kMaxTraceRecordBytes are
// skipped and named in `gaps` (when given). Error when the file cannot be read, or when it has lines
// but no record at all (not a TORCH_TRACE log).
Status for_each_trace_record(const std::filesystem::path& path, const std::function<bool(const TraceRecord&)>& fn,
                             std::vector<TraceGap>* gaps = nullptr);
// The log files of a directory (recursively, no dot-files), or the file itself, in sorted order.
Result<std::vector<std::filesystem::path>> trace_log_files(const std::filesystem::path& path_or_dir);

// Appends the cache event a record holds, if it is one (fx_graph_cache_*, aotautograd_cache_*,
// fx_graph_bundled_cache_hit); an error for a cache event whose payload is not a JSON object (naming
// the line and byte of invalid UTF-8, when that is why). The log's last record is different: a log cut
// off (still being written, or truncated) ends inside it, so with `gaps` given it becomes a gap naming
// the truncated tail, and the events before it stand.
Status append_cache_event(const TraceRecord& record, const std::string& log, std::vector<CacheEvent>& out,
                          std::vector<TraceGap>* gaps = nullptr);
// "0/0", "0/1_1", "!2/0/0" from a record's header metadata; empty when it carries no frame ids.
std::string record_compile_id(const nlohmann::json& meta);

// Reads one log; malformed records are skipped only when they are not cache events (a cache event
// with a broken payload is an error naming the file and line, unless it is the log's cut-off tail).
// What was skipped goes to `gaps` when given.
Result<std::vector<CacheEvent>> read_trace_log(const std::filesystem::path& path,
                                               std::vector<TraceGap>* gaps = nullptr);
// A log file, or a directory: every regular file in it (recursively), in sorted path order.
Result<std::vector<CacheEvent>> read_trace_logs(const std::filesystem::path& path_or_dir,
                                                std::vector<TraceGap>* gaps = nullptr);

}  // namespace kiln::trace
