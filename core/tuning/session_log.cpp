#include "tuning/session_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "inductor/beneath_root.hpp"
#include "inductor/evict_fs.hpp"
#include "util/path_component.hpp"
#include "util/unique_fd.hpp"
#include "util/utc_time.hpp"

namespace fs = std::filesystem;

namespace kiln::tuning {

Result<SessionLog> SessionLog::open(const fs::path& path) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::FILE* f = std::fopen(path.c_str(), "ae");
    if (!f) return io_error("cannot open the session log", path.string(), errno);
    return SessionLog(path, f);
}

Result<SessionLog> SessionLog::open(const inductor::OpenedRoot& root, std::string_view rel) {
    const std::string shown = inductor::path_beneath(root, rel);
    const auto slash = rel.rfind('/');
    const std::string name(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
    UniqueFd dir;
    if (slash != std::string_view::npos) {
        KILN_TRY(dir, inductor::evict_fs::open_dir_beneath(root.fd, rel.substr(0, slash), shown, true));
    }
    UniqueFd fd(::openat(dir.valid() ? dir.get() : root.fd, name.c_str(),
                         O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666));
    if (!fd.valid()) return io_error("cannot open the session log", shown, errno);
    std::FILE* f = ::fdopen(fd.get(), "a");
    if (!f) return io_error("cannot open the session log", shown, errno);
    fd.release();  // fclose closes it
    return SessionLog(shown, f);
}

SessionLog::SessionLog(SessionLog&& o) noexcept
    : path_(std::move(o.path_)), file_(o.file_), mutex_(std::move(o.mutex_)) {
    o.file_ = nullptr;
}

SessionLog::~SessionLog() {
    if (file_) std::fclose(file_);
}

void SessionLog::write(const std::string& event, nlohmann::ordered_json fields) {
    nlohmann::ordered_json line;
    line["time"] = utc_now(UtcFormat::iso_millis);
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
    const std::string stamp = utc_now(UtcFormat::compact);
    // The op name is the spec's: escaped and bounded (a long name must not fail the open), whole in the log.
    return cache_root / "kiln" / "autotune" /
           (file_name_part(op) + "-" + stamp + "-" + std::to_string(::getpid()) + ".jsonl");
}

}  // namespace kiln::tuning
