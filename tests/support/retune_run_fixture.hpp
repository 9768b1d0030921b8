#pragma once
// A `kiln-cli retune --json` result (issue 30's contract) made from a timing cache file: every op of
// the file, each choice measured ok on `device` at recorded x `factor` with a spread of 1% of that,
// as if that device had re-tuned the cache. For the hand-back tests (issue 31).
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.hpp"
#include "util/python_json.hpp"

namespace kiln::test {

inline nlohmann::ordered_json run_json_from_cache_file(const std::filesystem::path& cache_file,
                                                       const std::string& device_name, double factor = 0.9,
                                                       int device = 0) {
    using Json = nlohmann::ordered_json;
    Json file = kiln::py_loads(read_file(cache_file)).value();
    const Json& sys = file["system"];
    Json run{{"devices", Json::array({{{"index", device}, {"name", device_name}, {"arch", "sm_90"}}})},
             {"ops", Json::array()}};
    for (auto op = file["cache"].begin(); op != file["cache"].end(); ++op) {
        if (!op.value().is_object()) continue;
        for (auto in = op.value().begin(); in != op.value().end(); ++in)
            for (auto pr = in.value().begin(); pr != in.value().end(); ++pr) {
                Json o{{"op", op.key()},
                       {"inputs", in.key()},
                       {"precision", pr.key()},
                       {"recorded_for",
                        {{"system_hash", cache_file.filename().string()},
                         {"device", sys["device"]["name"]},
                         {"triton", sys["version"]["triton"]},
                         {"cuda", sys["version"]["cuda"]}}},
                       {"choices", Json::array()}};
                for (auto c = pr.value().begin(); c != pr.value().end(); ++c) {
                    double ms = c.value().get<double>() * factor;
                    bool triton = c.key().rfind("triton", 0) == 0;
                    o["choices"].push_back({{"name", c.key()},
                                            {"kind", triton ? "triton" : "extern"},
                                            {"runnable", true},
                                            {"why", ""},
                                            {"recorded_ms", c.value()},
                                            {"measured", Json::array({{{"device", device},
                                                                       {"status", "ok"},
                                                                       {"ms", ms},
                                                                       {"spread_ms", ms / 100},
                                                                       {"why", ""}}})}});
                }
                run["ops"].push_back(std::move(o));
            }
    }
    return run;
}

// The one file of `root`/cache whose system names `device_name`.
inline std::filesystem::path cache_file_for(const std::filesystem::path& root, const std::string& device_name) {
    for (const auto& e : std::filesystem::directory_iterator(root / "cache")) {
        auto j = kiln::py_loads(read_file(e.path()));
        if (j.ok() && (*j)["system"]["device"]["name"] == device_name) return e.path();
    }
    return {};
}

}  // namespace kiln::test
