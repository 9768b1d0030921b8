#include "autotune/timing_cache.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "hash/sha256.hpp"
#include "util/atomic_file.hpp"
#include "util/file_lock.hpp"
#include "util/python_json.hpp"

namespace fs = std::filesystem;

namespace kiln::autotune {

std::string system_hash(const nlohmann::ordered_json& system_without_hash) {
    return hash::sha256_hex(py_dumps(system_without_hash, {.sort_keys = true, .indent = -1}));
}

SystemInfo make_system(const nlohmann::ordered_json& without_hash) {
    SystemInfo info;
    info.system = without_hash.is_object() ? without_hash : nlohmann::ordered_json::object();
    info.system.erase("hash");
    info.hash = system_hash(info.system);
    info.system["hash"] = info.hash;
    return info;
}

SystemInfo cpu_system() { return make_system(nlohmann::ordered_json::object()); }

SystemInfo cuda_system(const fs::path& cache_root, const std::string& device_name, const std::string& cuda_version) {
    std::error_code ec;
    for (auto it = fs::directory_iterator(cache_root / "cache", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        auto file = read_cache_file(it->path());
        if (!file.ok() || !file->contains("system")) continue;
        const auto& sys = (*file)["system"];
        if (!sys.is_object() || !sys.contains("device") || !sys.contains("version")) continue;
        if (sys["device"].value("name", "") != device_name) continue;
        const auto& ver = sys["version"];
        if (!ver.is_object() || !ver.contains("cuda") || !ver["cuda"].is_string() || ver["cuda"].get<std::string>() != cuda_version) continue;
        SystemInfo adopted = make_system(sys);
        if (adopted.hash == it->path().filename().string()) return adopted;  // only files that obey the rule
    }
    nlohmann::ordered_json sys;
    sys["device"]["name"] = device_name;
    sys["version"]["cuda"] = cuda_version.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(cuda_version);
    sys["version"]["triton"] = nullptr;
    return make_system(sys);
}

Result<nlohmann::ordered_json> read_cache_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        if (errno == ENOENT || !fs::exists(path)) return nlohmann::ordered_json::object();
        return io_error("cannot open timing cache", path.string(), errno);
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (text.empty()) return nlohmann::ordered_json::object();
    KILN_TRY(auto j, py_loads(text, path.string()));
    if (!j.is_object()) return make_error(Errc::parse, "timing cache is not a JSON object", path.string());
    if (j.contains("cache") && !j["cache"].is_object())
        return make_error(Errc::parse, "\"cache\" is not an object", path.string());
    return j;
}

TimingCache::TimingCache(fs::path cache_root, SystemInfo system, std::optional<fs::path> global_dir)
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
        KILN_TRY(auto gf, read_cache_file(*g));
        collect(gf, key, out);
    }
    KILN_TRY(auto lf, read_cache_file(local_path()));
    collect(lf, key, out);
    return out;
}

Result<nlohmann::ordered_json> TimingCache::read_local() const {
    KILN_TRY(auto f, read_cache_file(local_path()));
    return f.contains("cache") ? f["cache"] : nlohmann::ordered_json::object();
}

Status TimingCache::update(const TimingKey& key, const ChoiceTimings& timings) const {
    KILN_TRY(FileLock lock, FileLock::acquire(lock_path()));
    KILN_TRY(auto file, read_cache_file(local_path()));
    // Keep the file's own system block (an Inductor-written one has the Triton key we lack).
    nlohmann::ordered_json out;
    out["system"] = file.contains("system") ? file["system"] : system_.system;
    out["cache"] = file.contains("cache") ? file["cache"] : nlohmann::ordered_json::object();
    auto& slot = out["cache"][key.op][key.inputs_key][key.precision];
    if (!slot.is_object()) slot = nlohmann::ordered_json::object();
    for (const auto& [choice, ms] : timings) slot[choice] = ms;
    return write_atomic(local_path(), py_dumps(out, {.sort_keys = false, .indent = 4}));
}

}  // namespace kiln::autotune
