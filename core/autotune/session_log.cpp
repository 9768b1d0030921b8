#include "autotune/session_log.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>

namespace fs = std::filesystem;

namespace kiln::autotune {

std::string utc_timestamp_iso() {
    auto now = std::chrono::system_clock::now();
    auto secs = std::chrono::system_clock::to_time_t(now);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
    return buf;
}

Result<SessionLog> SessionLog::open(const fs::path& path) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::FILE* f = std::fopen(path.c_str(), "ae");
    if (!f) return io_error("cannot open the session log", path.string(), errno);
    return SessionLog(path, f);
}

SessionLog::SessionLog(SessionLog&& o) noexcept : path_(std::move(o.path_)), file_(o.file_), mutex_(std::move(o.mutex_)) {
    o.file_ = nullptr;
}

SessionLog::~SessionLog() {
    if (file_) std::fclose(file_);
}

void SessionLog::write(const std::string& event, nlohmann::ordered_json fields) {
    nlohmann::ordered_json line;
    line["time"] = utc_timestamp_iso();
    line["event"] = event;
    for (auto it = fields.begin(); it != fields.end(); ++it) line[it.key()] = it.value();
    // +inf is not JSON: a failed choice's time is null, its status says why.
    std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::lock_guard lk(*mutex_);
    if (!file_) return;
    std::fputs(text.c_str(), file_);
    std::fflush(file_);
}

fs::path SessionLog::default_path(const fs::path& cache_root, const std::string& op) {
    auto secs = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char stamp[96];
    std::snprintf(stamp, sizeof stamp, "%04d%02d%02dT%02d%02d%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                  tm.tm_min, tm.tm_sec);
    std::string safe;
    for (char c : op) safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
    return cache_root / "kiln" / "autotune" / (safe + "-" + stamp + "-" + std::to_string(::getpid()) + ".jsonl");
}

}  // namespace kiln::autotune
