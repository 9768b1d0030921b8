#include "codecache/build_record.hpp"

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "cuda/nvcc.hpp"
#include "util/atomic_file.hpp"
#include "util/process.hpp"
#include "util/python_json.hpp"
#include "util/regular_file.hpp"

namespace kiln::codecache {

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
    } else if (auto r = run_process({.argv = {compiler, "--version"}}, {.merge_output = true});
               r.ok() && r->exit_status == 0) {
        version = r->out.substr(0, r->out.find('\n'));
    }
    std::lock_guard lock(mutex);
    versions[compiler] = version;
    return version;
}

nlohmann::ordered_json to_json(const BuildRecord& rec) {
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
    return j;
}

BuildRecord build_record_from_json(const nlohmann::json& j) {
    BuildRecord r;
    if (!j.is_object()) return r;
    r.key = j.value("key", "");
    r.source = j.value("source", "");
    r.output = j.value("output", "");
    r.command = j.value("command", "");
    r.command_template = j.value("command_template", "");
    r.compiler = j.value("compiler", "");
    r.compiler_version = j.value("compiler_version", "");
    r.duration_s = j.value("duration_s", 0.0);
    r.exit_code = j.value("exit_code", 0);
    r.time = j.value("time", "");
    r.size = j.value("size", std::uintmax_t{0});
    return r;
}

// The sidecar's text when it is a regular file nested as a record is (never a FIFO's wait, never a
// recursion 100000 deep).
static std::optional<std::string> read_sidecar(const std::filesystem::path& side) {
    auto text = read_regular_file(side, 64u << 20);
    if (!text.ok() || json_nesting_depth(*text) > kMaxJsonDepth) return std::nullopt;
    return std::move(*text);
}

Result<std::vector<BuildRecord>> read_build_history(const std::filesystem::path& artifact) {
    std::vector<BuildRecord> out;
    auto text = read_sidecar(sidecar_path(artifact));
    if (!text) return out;
    auto top = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!top.is_object()) return make_error(Errc::parse, "not a build record", sidecar_path(artifact).string());
    out.push_back(build_record_from_json(top));
    if (auto h = top.find("history"); h != top.end() && h->is_array())
        for (auto it = h->rbegin(); it != h->rend(); ++it) out.push_back(build_record_from_json(*it));  // newest first
    return out;
}

Status write_build_record(const std::filesystem::path& artifact, const BuildRecord& rec) {
    nlohmann::ordered_json j = to_json(rec);
    auto history = nlohmann::ordered_json::array();
    auto side = sidecar_path(artifact);
    if (auto text = read_sidecar(side)) {
        // A previous record: keep it (without its own history) after the older entries.
        auto prev = nlohmann::ordered_json::parse(*text, nullptr, /*allow_exceptions=*/false);
        if (prev.is_object()) {
            if (prev.contains("history") && prev["history"].is_array()) history = prev["history"];
            prev.erase("history");
            history.push_back(std::move(prev));
        }
    }
    j["history"] = std::move(history);
    // Paths and commands may hold any bytes: invalid UTF-8 becomes U+FFFD here (the record must stay
    // readable JSON for the history), where kiln::dump_json's \udcXX escapes would not parse back.
    return write_atomic(side, j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
}

}  // namespace kiln::codecache
