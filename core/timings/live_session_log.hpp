#pragma once
// A running session's log (timings/session_log_source.hpp), re-read whenever it has grown: what the
// GUI's launcher follows, on a worker thread, while `kiln-cli autotune` appends to it.
#include <cstdint>
#include <filesystem>
#include <optional>

#include "timings/session_log_source.hpp"
#include "util/result.hpp"

namespace kiln::timings {

struct LiveSessionLog {
    std::uintmax_t size = 0;  // the log's size when it was read: pass it back as `known_size`
    SessionTimings timings;
};

// The log as far as it is written when its size is not `known_size` (nullopt: read it whatever its
// size); nullopt while it is unchanged or not created yet. An error when it exists but cannot be
// read (a follower tries again on its next tick).
Result<std::optional<LiveSessionLog>> read_session_log_if_changed(const std::filesystem::path& path,
                                                                  std::optional<std::uintmax_t> known_size);

}  // namespace kiln::timings
