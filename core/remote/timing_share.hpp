#pragma once
// `kiln-cli autotune … --share URL`: before tuning, every timing shared in Redis is pulled into
// a private directory that tune() reads as its global timing cache, so a full remote hit
// benchmarks nothing; after tuning, the local timings of the tuned key are published (merged,
// see shared_timings.hpp). The directory is removed when the TimingShare dies.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "remote/shared_timings.hpp"
#include "tuning/tune_report.hpp"
#include "util/temp_cleanup.hpp"

namespace kiln::remote {

class TimingShare {
public:
    // `user_global_dir`: the --global-cache-dir the user gave, copied in first (its values win).
    static Result<TimingShare> open(std::string_view url, const std::optional<std::filesystem::path>& user_global_dir,
                                    RedisLimits timeouts = {});
    TimingShare(TimingShare&&) noexcept;
    TimingShare& operator=(TimingShare&&) = delete;
    ~TimingShare();

    const std::filesystem::path& global_dir() const { return dir_; }
    std::size_t pulled() const { return pulled_; }  // shared entries found on the server

    // Publishes the local timings of the report's key (from its cache file) under this host.
    Result<PublishReport> publish(const tuning::TuneReport& report, const std::string& host = this_host());
    std::string describe(const PublishReport& p) const;  // one line for stderr

private:
    TimingShare(RedisClient client, std::filesystem::path dir, std::size_t pulled);
    RedisClient client_;
    std::filesystem::path dir_;
    TempCleanup cleanup_;  // removes dir_ if a signal ends the process first
    std::size_t pulled_ = 0;
};

// Merges Inductor timing-cache files: every choice of `from` missing in `into` is added.
void merge_missing_timings(nlohmann::ordered_json& into, const nlohmann::ordered_json& from);

}  // namespace kiln::remote
