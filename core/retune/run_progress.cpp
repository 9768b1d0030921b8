#include "retune/run_progress.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/beneath_root.hpp"
#include "inductor/evict_fs.hpp"
#include "util/atomic_file.hpp"
#include "util/unique_fd.hpp"
#include "util/utc_time.hpp"

namespace fs = std::filesystem;

namespace kiln::retune {

namespace {

std::string string_field(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

void add_session_log_progress(std::string_view text, RunProgress& into) {
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(at, end - at);
        at = end + 1;
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object()) continue;
        const std::string event = string_field(j, "event");
        if (event == "session_start") {
            auto c = j.find("choices");
            if (c != j.end() && c->is_number_unsigned() && c->get<std::uint64_t>() < (1u << 30))
                into.planned += static_cast<int>(c->get<std::uint64_t>());
        } else if (event == "measurement") {
            ++into.measured;
            ++into.per_device[string_field(j, "device")];
            if (string_field(j, "status") != "ok") ++into.failed;
        }
    }
}

Result<RunProgress> read_run_progress(const inductor::OpenedRoot& root, long pid) {
    RunProgress p;
    const std::string dir = "kiln/autotune";
    const std::string suffix = "-" + std::to_string(pid) + ".jsonl";
    auto listed = inductor::list_beneath(root, dir);
    if (!listed && listed.error().code == Errc::not_found) return p;  // not made yet: nothing measured
    if (!listed) return std::move(listed.error());
    std::vector<std::string> names;
    for (const auto& e : *listed)
        if (e.name.rfind("retune-", 0) == 0 && e.name.size() > suffix.size() &&
            e.name.compare(e.name.size() - suffix.size(), suffix.size(), suffix) == 0)
            names.push_back(e.name);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
        const std::string rel = dir + "/" + name;
        p.logs.emplace_back(inductor::path_beneath(root, rel));
        auto text = inductor::read_beneath(root, rel, 64ull << 20);
        if (!text.ok()) continue;  // being replaced or too large: counted on a later read
        add_session_log_progress(*text, p);
    }
    return p;
}

Result<fs::path> save_run_report(const inductor::OpenedRoot& root, std::string_view json) {
    const std::string dir = "kiln/retune", name = "run-" + utc_now(UtcFormat::compact) + ".json";
    const std::string path = inductor::path_beneath(root, dir + "/" + name);
    KILN_TRY(UniqueFd folder, inductor::evict_fs::open_dir_beneath(root.fd, dir, path, true));
    KILN_CHECK(write_atomic_at(folder.get(), name, json, path));
    return fs::path(path);
}

}  // namespace kiln::retune
