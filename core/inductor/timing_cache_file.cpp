#include "inductor/timing_cache_file.hpp"

#include <cstdint>

#include "hash/sha256.hpp"
#include "util/json_get.hpp"
#include "util/python_json.hpp"
#include "util/regular_file.hpp"

namespace fs = std::filesystem;

namespace kiln::inductor {

constexpr std::uint64_t kMaxCacheFileBytes = 1ull << 30;

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
    for (auto it = fs::directory_iterator(cache_root / "cache", ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        auto file = read_cache_file(it->path());
        if (!file.ok() || !file->contains("system")) continue;
        const auto& sys = (*file)["system"];
        if (!sys.is_object() || !sys.contains("device") || !sys.contains("version")) continue;
        auto name = json_get::string_field_or(sys["device"], "name", {}, "");  // any other file's types
        if (!name || *name != device_name) continue;
        const auto& ver = sys["version"];
        if (!ver.is_object() || !ver.contains("cuda") || !ver["cuda"].is_string() ||
            ver["cuda"].get<std::string>() != cuda_version)
            continue;
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
    auto text = read_regular_file(path, kMaxCacheFileBytes);  // a FIFO here must not block
    if (!text.ok()) {
        if (text.error().code == Errc::not_found) return nlohmann::ordered_json::object();
        return std::move(text.error());
    }
    if (text->empty()) return nlohmann::ordered_json::object();
    KILN_TRY(auto j, py_loads(*text, path.string()));
    if (!j.is_object()) return make_error(Errc::parse, "timing cache is not a JSON object", path.string());
    if (j.contains("cache") && !j["cache"].is_object())
        return make_error(Errc::parse, "\"cache\" is not an object", path.string());
    return j;
}

}  // namespace kiln::inductor
