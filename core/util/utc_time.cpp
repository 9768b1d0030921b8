#include "util/utc_time.hpp"

#include <cstdio>
#include <ctime>

namespace kiln {

std::string format_utc(std::chrono::system_clock::time_point t, UtcFormat format) {
    using namespace std::chrono;
    auto secs = system_clock::to_time_t(time_point_cast<system_clock::duration>(floor<seconds>(t)));
    int ms = static_cast<int>(duration_cast<milliseconds>(t - floor<seconds>(t)).count());
    std::tm tm{};
    gmtime_r(&secs, &tm);
    const int y = tm.tm_year + 1900, mo = tm.tm_mon + 1;
    char buf[64];
    switch (format) {
        case UtcFormat::iso:
            std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", y, mo, tm.tm_mday, tm.tm_hour, tm.tm_min,
                          tm.tm_sec);
            break;
        case UtcFormat::iso_millis:
            std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, mo, tm.tm_mday, tm.tm_hour,
                          tm.tm_min, tm.tm_sec, ms);
            break;
        case UtcFormat::compact:
            std::snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02dZ", y, mo, tm.tm_mday, tm.tm_hour, tm.tm_min,
                          tm.tm_sec);
            break;
        case UtcFormat::readable:
            std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d UTC", y, mo, tm.tm_mday, tm.tm_hour,
                          tm.tm_min, tm.tm_sec);
            break;
    }
    return buf;
}

}  // namespace kiln
