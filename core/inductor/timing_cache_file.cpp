#include "inductor/timing_cache_file.hpp"

#include <cstdint>

#include "hash/sha256.hpp"
#include "util/json_get.hpp"
#include "util/python_json.hpp"
#include "util/regular_file.hpp"

namespace fs = std::filesystem;

namespace kiln::inductor {

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
    return parse_cache_file(*text, path.string());
}

Result<nlohmann::ordered_json> parse_cache_file(const std::string& text, const std::string& path) {
    if (text.empty()) return nlohmann::ordered_json::object();
    KILN_TRY(auto j, py_loads(text, path));
    if (!j.is_object()) return make_error(Errc::parse, "timing cache is not a JSON object", path);
    if (j.contains("cache") && !j["cache"].is_object())
        return make_error(Errc::parse, "\"cache\" is not an object", path);
    return j;
}

namespace {

// `into` gains what `from` has and it lacks, `depth` levels down (4: op, inputs, precision, choice).
void add_missing_nodes(nlohmann::ordered_json& into, const nlohmann::ordered_json& from, int depth) {
    if (!into.is_object() || !from.is_object()) return;
    for (auto it = from.begin(); it != from.end(); ++it) {
        auto found = into.find(it.key());
        if (found == into.end()) into[it.key()] = it.value();
        else if (depth > 1) add_missing_nodes(*found, it.value(), depth - 1);
    }
}

}  // namespace

void add_missing_timings(nlohmann::ordered_json& file, const nlohmann::ordered_json& older) {
    if (!file.is_object() || !older.is_object() || !older.contains("cache")) return;
    if (!file.contains("cache")) file["cache"] = nlohmann::ordered_json::object();
    add_missing_nodes(file["cache"], older["cache"], 4);
}

}  // namespace kiln::inductor
