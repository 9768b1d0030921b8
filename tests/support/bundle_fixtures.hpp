#pragma once
// The fixtures' Mega-Cache blobs and the artifact lists torch printed for them (run_mega.json).
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace kiln::test {

inline std::filesystem::path h200_blob() { return fixture_dir() / "h100h200" / "h200" / "megacache.bin"; }
inline std::filesystem::path pgo_blob() { return fixture_dir() / "pgo" / "megacache-pgo.bin"; }

// torch's CacheInfo repr, "{'aot_autograd': ['k1', ...], 'inductor': [...]}", as type -> keys in order.
inline std::vector<std::pair<std::string, std::vector<std::string>>> torch_cache_info(
    const std::filesystem::path& run_json) {
    auto j = nlohmann::json::parse(read_file(run_json));
    // The H200 run keeps it under scenarios.mega.info, the PGO run under "mega".
    std::string info = j.contains("scenarios") ? j["scenarios"]["mega"]["info"] : j["mega"];
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    std::regex group(R"('(\w+)': \[([^\]]*)\])"), key(R"('([^']*)')");
    for (std::sregex_iterator g(info.begin(), info.end(), group), end; g != end; ++g) {
        std::vector<std::string> keys;
        std::string list = (*g)[2];
        for (std::sregex_iterator k(list.begin(), list.end(), key); k != end; ++k) keys.push_back((*k)[1]);
        out.emplace_back((*g)[1], keys);
    }
    return out;
}

}  // namespace kiln::test
