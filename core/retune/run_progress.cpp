#include "retune/run_progress.hpp"

#include <algorithm>
#include <system_error>

#include <nlohmann/json.hpp>

#include "util/atomic_file.hpp"
#include "util/regular_file.hpp"
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

Result<RunProgress> read_run_progress(const fs::path& root, long pid) {
    RunProgress p;
    const fs::path dir = root / "kiln" / "autotune";
    const std::string suffix = "-" + std::to_string(pid) + ".jsonl";
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec == std::errc::no_such_file_or_directory) return p;  // not made yet: nothing measured
    if (ec) return make_error(Errc::io, "cannot list the session logs: " + ec.message(), dir.string());
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) break;
        const std::string name = it->path().filename().string();
        if (name.rfind("retune-", 0) == 0 && name.size() > suffix.size() &&
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
            p.logs.push_back(it->path());
    }
    std::sort(p.logs.begin(), p.logs.end());
    for (const auto& log : p.logs) {
        auto text = read_regular_file(log, 64ull << 20);
        if (!text.ok()) continue;  // being replaced or too large: counted on a later read
        add_session_log_progress(*text, p);
    }
    return p;
}

Result<fs::path> save_run_report(const fs::path& root, std::string_view json) {
    const fs::path path = root / "kiln" / "retune" / ("run-" + utc_now(UtcFormat::compact) + ".json");
    KILN_CHECK(write_atomic(path, json));
    return path;
}

}  // namespace kiln::retune
