#include "timings/live_session_log.hpp"

namespace fs = std::filesystem;

namespace kiln::timings {

Result<std::optional<LiveSessionLog>> read_session_log_if_changed(const fs::path& path,
                                                                  std::optional<std::uintmax_t> known_size) {
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec) {
        if (ec == std::errc::no_such_file_or_directory) return std::optional<LiveSessionLog>{};
        return io_error("stat", path.string(), ec.value());
    }
    if (known_size && *known_size == size) return std::optional<LiveSessionLog>{};
    // Sized before reading: a log that grows meanwhile is read again on the next call.
    KILN_TRY(SessionTimings timings, read_session_log(path));
    return std::optional<LiveSessionLog>{LiveSessionLog{size, std::move(timings)}};
}

}  // namespace kiln::timings
