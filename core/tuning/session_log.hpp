#pragma once
// The session log: one JSON object per line for every event of a tuning session (start, worker
// start, each measurement with device, choice, parameters, compile time, timing statistics and
// status, cache hits, end). The GUI charts it; lines are flushed as they happen, so a crashed
// session still leaves its measurements.
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string_view>

#include <nlohmann/json.hpp>

#include "inductor/opened_root.hpp"
#include "util/result.hpp"

namespace kiln::tuning {

class SessionLog {
public:
    static Result<SessionLog> open(const std::filesystem::path& path);
    // The log `rel` ('/'-separated, relative) beneath an opened cache root, its folders made there
    // through the root's descriptor, no symlink followed (issue 44: what a command writes into the
    // cache it was given lands in the directory it opened); path() is path_beneath(root, rel).
    static Result<SessionLog> open(const inductor::OpenedRoot& root, std::string_view rel);
    SessionLog(SessionLog&& o) noexcept;
    SessionLog(const SessionLog&) = delete;
    ~SessionLog();

    // Adds "time" (ISO 8601 UTC with milliseconds) and "event", then writes one line.
    void write(const std::string& event, nlohmann::ordered_json fields);
    const std::filesystem::path& path() const { return path_; }

    // <cache root>/kiln/autotune/<op>-<UTC stamp>-<pid>.jsonl, <op> as file_name_part makes it
    // (util/path_component): the name is data, never a path.
    static std::filesystem::path default_path(const std::filesystem::path& cache_root, const std::string& op);

private:
    SessionLog(std::filesystem::path p, std::FILE* f) : path_(std::move(p)), file_(f) {}
    std::filesystem::path path_;
    std::FILE* file_ = nullptr;
    std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();
};

}  // namespace kiln::tuning
