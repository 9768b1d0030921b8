#pragma once
// A writer of torch's timing cache the way torch 2.11 writes it, for the race tests of Kiln's merges
// (issue 42 #9): PersistentCache.lookup reads cache/<hash> (get_local_cache: json.load), adds its op's
// timings, and update_local_cache puts the whole file back with write_atomic: `.<pid>.<tid>.tmp`
// beside it, opened with O_TRUNC, written, renamed over the file. No lock, no fsync.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "util/python_json.hpp"

namespace kiln::test {

// Sets cache[op][inputs]["highest"][choice] = ms in `file` as torch does. False when the file was there
// but did not parse (torch's json.load would raise).
inline bool torch_style_set(const std::filesystem::path& file, const std::string& op, const std::string& inputs,
                            const std::string& choice, double ms) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    if (std::ifstream in{file, std::ios::binary}) {
        std::stringstream text;
        text << in.rdbuf();
        auto parsed = kiln::py_loads(text.str(), file.string());
        if (!parsed.ok() || !parsed->is_object()) return false;
        j = std::move(*parsed);
    }
    if (!j.contains("system")) j["system"] = {{"hash", file.filename().string()}};
    j["cache"][op][inputs]["highest"][choice] = ms;
    const auto tid = std::hash<std::thread::id>{}(std::this_thread::get_id());
    const auto tmp = file.parent_path() / ("." + std::to_string(::getpid()) + "." + std::to_string(tid) + ".tmp");
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << kiln::py_dumps(j, {.sort_keys = false, .indent = 4});
    }
    std::error_code ec;
    std::filesystem::rename(tmp, file, ec);
    return !ec;
}

}  // namespace kiln::test
