#pragma once
// Kiln's own autotune session logs (core/tuning/session_log.hpp, JSON lines written by
// `kiln-cli autotune` and the GUI's launcher): a "session_start" event names the op, inputs key
// and precision; each "measurement" (or "cache_hit") is one choice on one device with its ms,
// status and reason; "session_end" names the best. Choices are grouped into one op per device; a
// choice without a time keeps its status and reason so the GUI can show why it failed. The log
// of a running session is read as far as it goes (a torn last line is skipped).
#include <filesystem>
#include <vector>

#include "timings/timing_model.hpp"
#include "util/result.hpp"

namespace kiln::timings {

struct SessionTimings {
    std::string device;  // the session's devices ("cpu", "cuda:0,cuda:1")
    std::vector<Op> ops;
    int planned_choices = 0;  // from session_start (0 if unknown)
    int measured = 0;         // measurement and cache_hit events so far
    bool ended = false;       // session_end seen
    int skipped_lines = 0;    // blank, torn (last line of a live log) or unrelated records
};

Result<SessionTimings> read_session_log(const std::filesystem::path& path);
SessionTimings parse_session_log(const std::string& text, const std::string& origin);
bool looks_like_session_log(const std::string& head);

}  // namespace kiln::timings
