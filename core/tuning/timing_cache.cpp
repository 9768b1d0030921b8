#include "tuning/timing_cache.hpp"

#include "util/atomic_file.hpp"
#include "util/file_lock.hpp"
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
        for (auto it = e->begin(); it != e->end(); ++it)
            if (it.value().is_number()) out[it.key()] = it.value().get<double>();
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

Status TimingCache::update(const TimingKey& key, const ChoiceTimings& timings) const {
    KILN_TRY(FileLock lock, FileLock::acquire(lock_path()));
    KILN_TRY(auto file, inductor::read_cache_file(local_path()));
    // Keep the file's own system block (an Inductor-written one has the Triton key we lack).
    nlohmann::ordered_json out;
    out["system"] = file.contains("system") ? file["system"] : system_.system;
    out["cache"] = file.contains("cache") ? file["cache"] : nlohmann::ordered_json::object();
    auto& slot = out["cache"][key.op][key.inputs_key][key.precision];
    if (!slot.is_object()) slot = nlohmann::ordered_json::object();
    for (const auto& [choice, ms] : timings) slot[choice] = ms;
    return write_atomic(local_path(), py_dumps(out, {.sort_keys = false, .indent = 4}));
}

}  // namespace kiln::tuning
