#pragma once
// A TORCH_TRACE run seen as compiles: each compile (a `dynamo_start` record up to the next one with
// the same compile id) with the frame it compiled (function, file:line from the `str` table), the
// symbols it created (`create_symbol`: symbol, value, source such as L['x'].size()[0]) and the cache
// events it logged. Compile ids repeat within a log (torch._dynamo.reset() between scenarios), so
// events are tied to compiles by record order, never by id alone (env-trace §2.4).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trace/trace_log.hpp"
#include "util/result.hpp"

namespace kiln::trace {

struct TraceSymbol {
    std::string symbol;  // "s77"
    std::string value;   // repr of the hint: "2147483664"
    std::string source;  // "L['x'].size()[0]"
    std::string range;   // "[2, int_oo]"
};

struct TraceCompile {
    std::string log;
    std::size_t line = 0;  // the dynamo_start record
    std::int64_t pid = 0;
    std::string time;  // local time of the process, as logged ("1126 01:27:58.362000")
    std::string compile_id;
    std::string function;  // last frame of dynamo_start's stack (the compiled function)
    std::string file;      // from the log's string table
    std::optional<std::int64_t> first_line;
    // The innermost frame outside site-packages (the user's code) when the compiled frame is torch's
    // own (an nn.Module's `inner` wrapper, say): the line that called into the compiled code.
    std::string user_function, user_file, user_code;
    std::optional<std::int64_t> user_line;
    std::vector<TraceSymbol> symbols;  // in creation order

    // The last symbol record named `symbol` (a recompile may create it again).
    const TraceSymbol* find_symbol(const std::string& symbol) const;
};

struct TraceRun {
    std::vector<TraceCompile> compiles;
    std::vector<CacheEvent> events;  // every cache event (fx_graph and aot_autograd), `compile` set when known
    std::vector<TraceGap> gaps;      // what was skipped: huge records, a cut-off cache event ending a log
};

// Reads a log or a directory of logs (sorted path order).
Result<TraceRun> read_trace_run(const std::filesystem::path& log_or_dir);

// "1126 01:28:00.047000" -> "11-26 01:28:00.047" (glog's month/day and local time, milliseconds).
std::string local_time_label(const std::string& glog_time);

}  // namespace kiln::trace
