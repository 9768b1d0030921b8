#pragma once
// UTC timestamps as Kiln writes them: the one formatter behind build records, session logs,
// their file names and `kiln-cli stats`.
#include <chrono>
#include <string>

namespace kiln {

enum class UtcFormat {
    iso,         // 2025-01-31T12:34:56Z         (build records)
    iso_millis,  // 2025-01-31T12:34:56.789Z     (session log events)
    compact,     // 20250131T123456Z             (file names)
    readable,    // 2025-01-31 12:34:56 UTC      (kiln-cli stats, evict)
};

std::string format_utc(std::chrono::system_clock::time_point t, UtcFormat format);
inline std::string utc_now(UtcFormat format) { return format_utc(std::chrono::system_clock::now(), format); }

}  // namespace kiln
