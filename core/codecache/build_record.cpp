#include "codecache/build_record.hpp"

#include <nlohmann/json.hpp>

#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "util/atomic_file.hpp"
#include "cuda/nvcc.hpp"
#include "util/process.hpp"

namespace kiln::codecache {

std::string utc_now_iso8601() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string compiler_version(const std::string& compiler, bool is_nvcc) {
    static std::mutex mutex;
    static std::map<std::string, std::string> versions;
    {
        std::lock_guard lock(mutex);
        if (auto it = versions.find(compiler); it != versions.end()) return it->second;
    }
    std::string version;
    if (is_nvcc) {
        version = cuda::nvcc_version(compiler);
    } else if (auto r = run_process({.argv = {compiler, "--version"}}, {.merge_output = true}); r.ok() && r->exit_status == 0) {
        version = r->out.substr(0, r->out.find('\n'));
    }
    std::lock_guard lock(mutex);
    versions[compiler] = version;
    return version;
}

Status write_build_record(const std::filesystem::path& artifact, const BuildRecord& rec) {
    nlohmann::ordered_json j;
    j["key"] = rec.key;
    j["source"] = rec.source;
    j["output"] = rec.output;
    j["command"] = rec.command;
    j["command_template"] = rec.command_template;
    j["compiler"] = rec.compiler;
    j["compiler_version"] = rec.compiler_version;
    j["duration_s"] = rec.duration_s;
    j["exit_code"] = rec.exit_code;
    j["time"] = rec.time;
    j["size"] = rec.size;
    auto history = nlohmann::ordered_json::array();
    auto side = sidecar_path(artifact);
    if (std::ifstream in(side); in) {
        // A previous record: keep it (without its own history) after the older entries.
        auto prev = nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
        if (prev.is_object()) {
            if (prev.contains("history") && prev["history"].is_array()) history = prev["history"];
            prev.erase("history");
            history.push_back(std::move(prev));
        }
    }
    j["history"] = std::move(history);
    return write_atomic(side, j.dump(2) + "\n");
}

}  // namespace kiln::codecache
