#include "tuning/timing_cache.hpp"

#include <unistd.h>
#include <cmath>

#include "util/atomic_file.hpp"
#include "util/file_lock.hpp"
#include "util/json_get.hpp"
#include "util/merged_write.hpp"
#include "util/python_json.hpp"

namespace fs = std::filesystem;

namespace kiln::tuning {

TimingCache::TimingCache(fs::path cache_root, inductor::SystemInfo system, std::optional<fs::path> global_dir)
    : root_(std::move(cache_root)), system_(std::move(system)), global_dir_(std::move(global_dir)) {}

fs::path TimingCache::local_path() const { return root_ / "cache" / system_.hash; }
std::optional<fs::path> TimingCache::global_path() const {
    if (!global_dir_) return std::nullopt;
    return *global_dir_ / system_.hash;
}
fs::path TimingCache::lock_path() const { return root_ / "locks" / ("autotune-" + system_.hash + ".lock"); }

static const nlohmann::ordered_json* find_entry(const nlohmann::ordered_json& file, const TimingKey& key) {
    if (!file.contains("cache")) return nullptr;
    const auto& c = file["cache"];
    if (!c.contains(key.op) || !c[key.op].is_object()) return nullptr;
    const auto& byop = c[key.op];
    if (!byop.contains(key.inputs_key) || !byop[key.inputs_key].is_object()) return nullptr;
    const auto& byin = byop[key.inputs_key];
    if (!byin.contains(key.precision) || !byin[key.precision].is_object()) return nullptr;
    return &byin[key.precision];
}

static void collect(const nlohmann::ordered_json& file, const TimingKey& key, ChoiceTimings& out) {
    if (const auto* e = find_entry(file, key))
        for (auto it = e->begin(); it != e->end(); ++it)  // a time, or +inf for a failed choice; NaN, -1 skipped
            if (auto ms = json_get::time_ms(it.value(), {}, json_get::Time::infinity_failed)) out[it.key()] = *ms;
}

Result<ChoiceTimings> TimingCache::lookup(const TimingKey& key) const {
    ChoiceTimings out;
    if (auto g = global_path()) {
        KILN_TRY(auto gf, inductor::read_cache_file(*g));
        collect(gf, key, out);
    }
    KILN_TRY(auto lf, inductor::read_cache_file(local_path()));
    collect(lf, key, out);
    return out;
}

Result<nlohmann::ordered_json> TimingCache::read_local() const {
    KILN_TRY(auto f, inductor::read_cache_file(local_path()));
    return f.contains("cache") ? f["cache"] : nlohmann::ordered_json::object();
}

fs::path TimingCache::unsaved_path() const {
    return root_ / "kiln" / "autotune" / ("unsaved-" + system_.hash + ".json");
}

// The first node on cache/op/inputs_key/precision that is there but is no object ("" when the path is
// free): someone else's malformed data, which a merge must neither change nor write through.
static std::string blocked_node(const nlohmann::ordered_json& file, const TimingKey& key) {
    const nlohmann::ordered_json* node = &file;
    std::string where;
    static const std::string cache = "cache";
    for (const std::string* step : {&cache, &key.op, &key.inputs_key, &key.precision}) {
        where += (where.empty() ? "" : ".") + *step;
        if (!node->contains(*step)) return "";
        node = &(*node)[*step];
        if (!node->is_object()) return where + " is " + std::string(node->type_name()) + ", not an object";
    }
    return "";
}

// The timings go into `slot` (created as needed); every other byte of `file` keeps its value.
static nlohmann::ordered_json merged(nlohmann::ordered_json file, const nlohmann::ordered_json& system,
                                     const TimingKey& key, const ChoiceTimings& timings) {
    nlohmann::ordered_json out;
    // Keep the file's own system block (an Inductor-written one has the Triton key we lack).
    out["system"] = file.contains("system") ? std::move(file["system"]) : system;
    out["cache"] = file.contains("cache") ? std::move(file["cache"]) : nlohmann::ordered_json::object();
    for (auto it = file.begin(); it != file.end(); ++it)  // any other top-level key, as it was
        if (it.key() != "system" && it.key() != "cache") out[it.key()] = std::move(it.value());
    auto& slot = out["cache"][key.op][key.inputs_key][key.precision];
    if (!slot.is_object()) slot = nlohmann::ordered_json::object();
    for (const auto& [choice, ms] : timings) slot[choice] = ms;
    return out;
}

// The cache file cannot take the timings without losing someone's data: it stays as it is, the
// timings go to a file of Kiln's own (merged with what an earlier rescue left there), and the error
// names both.
Status TimingCache::rescue(const TimingKey& key, const ChoiceTimings& timings, const Error& why) const {
    fs::path to = unsaved_path();
    auto earlier = inductor::read_cache_file(to);
    if (!earlier.ok() || !blocked_node(*earlier, key).empty())
        to += "." + std::to_string(::getpid());  // never overwrite an earlier rescue
    nlohmann::ordered_json base = earlier.ok() && to == unsaved_path() ? std::move(*earlier) : nlohmann::ordered_json();
    Status saved = write_atomic(to, py_dumps(merged(std::move(base), system_.system, key, timings), {.indent = 4}));
    std::string n = std::to_string(timings.size());
    if (!saved.ok())
        return make_error(
            why.code,
            why.message + "; the " + n + " new timings could not be saved either (" + saved.error().str() + ")",
            why.context, "the session log still lists every measurement");
    return make_error(
        why.code, why.message + "; the file was left as it is and the " + n + " new timings saved to " + to.string(),
        why.context,
        "fix or remove the malformed part, then copy the timings over (or tune again) so that "
        "Inductor finds them");
}

Status TimingCache::update(const TimingKey& key, const ChoiceTimings& timings) const {
    KILN_TRY(FileLock lock, FileLock::acquire(lock_path()));
    auto target = MergedWrite::open(local_path(), inductor::kMaxCacheFileBytes);
    if (!target.ok()) return rescue(key, timings, target.error());
    // Inductor rewrites the file without a lock: a version it renames in meanwhile is merged too.
    std::optional<Error> refused;  // the file (or a newer version) cannot take the timings
    nlohmann::ordered_json seen;   // the last version merged, once a newer one came (null until then)
    auto done = target->replace([&](const std::optional<std::string>& current) -> Result<std::string> {
        auto file = inductor::parse_cache_file(current.value_or(""), local_path().string());
        if (!file.ok()) {
            refused = file.error();
            return std::move(file.error());
        }
        // A newer version torch wrote from an older read must not take away what an earlier one held.
        if (&current != &target->text()) {
            if (seen.is_null() && target->text())
                seen = inductor::parse_cache_file(*target->text(), local_path().string()).value_or({});
            inductor::add_missing_timings(*file, seen);
            seen = *file;
        }
        if (std::string blocked = blocked_node(*file, key); !blocked.empty()) {
            refused = make_error(Errc::parse, "timing cache: " + blocked, local_path().string());
            return *refused;
        }
        return py_dumps(merged(std::move(*file), system_.system, key, timings), {.sort_keys = false, .indent = 4});
    });
    if (!done.ok()) return refused ? rescue(key, timings, *refused) : std::move(done.error());
    return ok_status();
}

}  // namespace kiln::tuning
