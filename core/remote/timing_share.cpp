#include "remote/timing_share.hpp"

#include "inductor/timing_cache_file.hpp"

#include <stdlib.h>

#include "util/atomic_file.hpp"
#include "util/json_get.hpp"
#include "util/python_json.hpp"

namespace fs = std::filesystem;

namespace kiln::remote {

void merge_missing_timings(nlohmann::ordered_json& into, const nlohmann::ordered_json& from) {
    if (!into.is_object()) into = nlohmann::ordered_json::object();
    if (!into.contains("system") && from.contains("system")) into["system"] = from["system"];
    if (!from.contains("cache") || !from["cache"].is_object()) return;
    auto& cache = into["cache"];
    if (!cache.is_object()) cache = nlohmann::ordered_json::object();
    for (auto op = from["cache"].begin(); op != from["cache"].end(); ++op) {
        if (!op.value().is_object()) {
            if (!cache.contains(op.key())) cache[op.key()] = op.value();
            continue;
        }
        for (auto in = op.value().begin(); in != op.value().end(); ++in) {
            if (!in.value().is_object()) continue;
            for (auto pr = in.value().begin(); pr != in.value().end(); ++pr) {
                if (!pr.value().is_object()) continue;
                auto& slot = cache[op.key()][in.key()][pr.key()];
                if (!slot.is_object()) slot = nlohmann::ordered_json::object();
                for (auto ch = pr.value().begin(); ch != pr.value().end(); ++ch)
                    if (!slot.contains(ch.key())) slot[ch.key()] = ch.value();
            }
        }
    }
}

TimingShare::TimingShare(RedisClient client, fs::path dir, std::size_t pulled)
    : client_(std::move(client)), dir_(std::move(dir)), cleanup_(dir_), pulled_(pulled) {}

TimingShare::TimingShare(TimingShare&& o) noexcept
    : client_(std::move(o.client_)), dir_(std::move(o.dir_)), cleanup_(std::move(o.cleanup_)), pulled_(o.pulled_) {
    o.dir_.clear();
}

TimingShare::~TimingShare() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
}

Result<TimingShare> TimingShare::open(std::string_view url, const std::optional<fs::path>& user_global_dir,
                                      RedisLimits timeouts) {
    KILN_TRY(auto ep, resolve_redis_endpoint(url));
    KILN_TRY(auto client, RedisClient::connect(ep, timeouts));
    std::vector<std::string> warnings;
    KILN_TRY(auto shared, read_shared_timings(client, &warnings));

    std::string tmpl = (temp_directory() / "kiln-share-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return io_error("mkdtemp", tmpl, errno);
    TimingShare share(std::move(client), fs::path(tmpl), shared.size());

    // Remote values first, then the user's global files merged over them (theirs win).
    KILN_CHECK(write_as_global_cache(shared, share.dir_));
    std::error_code ec;
    if (user_global_dir) {
        for (auto it = fs::directory_iterator(*user_global_dir, ec); !ec && it != fs::directory_iterator();
             it.increment(ec)) {
            if (!it->is_regular_file()) continue;
            KILN_TRY(auto mine, inductor::read_cache_file(it->path()));
            fs::path target = share.dir_ / it->path().filename();
            nlohmann::ordered_json merged = mine;
            if (fs::exists(target)) {
                KILN_TRY(auto remote, inductor::read_cache_file(target));
                merge_missing_timings(merged, remote);
            }
            KILN_CHECK(write_atomic(target, py_dumps(merged, {.sort_keys = false, .indent = 4}), false));
        }
        if (ec) return io_error("read directory", user_global_dir->string(), ec.value());
    }
    return share;
}

Result<PublishReport> TimingShare::publish(const tuning::TuneReport& report, const std::string& host) {
    // A full hit (local or shared) measured nothing, and may have left no local file to read.
    if (report.cache_hit) return PublishReport{};
    KILN_TRY(auto file, inductor::read_cache_file(report.cache_file));
    if (!file.contains("system"))
        return make_error(Errc::not_found, "the timing cache has no system block", report.cache_file.string());
    tuning::TimingKey key{report.op, report.inputs_key, report.precision};
    tuning::ChoiceTimings timings;
    if (file.contains("cache")) {
        const auto& c = file["cache"];
        if (c.contains(key.op) && c[key.op].contains(key.inputs_key) &&
            c[key.op][key.inputs_key].contains(key.precision)) {
            const auto& slot = c[key.op][key.inputs_key][key.precision];
            if (slot.is_object())  // each time checked: NaN or -1 is never shared (inf: a failed choice)
                for (auto it = slot.begin(); it != slot.end(); ++it)
                    if (auto ms = json_get::time_ms(it.value(), {}, json_get::Time::infinity_failed))
                        timings[it.key()] = *ms;
        }
    }
    if (timings.empty()) return PublishReport{};  // a full remote hit: nothing measured here
    return publish_timings(client_, file["system"], key, timings, host);
}

std::string TimingShare::describe(const PublishReport& p) const {
    return "shared timings on " + client_.endpoint().display() + ": pulled " + std::to_string(pulled_) +
           " entries; published " + std::to_string(p.added) + " new, " + std::to_string(p.same) + " already there, " +
           std::to_string(p.conflicting) + " differing (kept beside the shared value)";
}

}  // namespace kiln::remote
