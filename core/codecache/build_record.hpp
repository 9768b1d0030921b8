#pragma once
// The sidecar `<key>.<ext>.json` next to each compiled artifact: how and when it was built. Inductor
// keeps none of this; Kiln's scanner shows these files as the category `build_record`.
#include <cstdint>
#include <filesystem>
#include <string>

#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.hpp"

namespace kiln::codecache {

struct BuildRecord {
    std::string key;               // the source's key (= artifact's basename)
    std::string source;            // path of the source file
    std::string output;            // path of the artifact
    std::string command;           // the real command line that ran
    std::string command_template;  // with dummy_input/dummy_output: the key's `extra`
    std::string compiler;          // argv[0]
    std::string compiler_version;  // first line of `--version` (nvcc: "release X.Y, VX.Y.Z")
    double duration_s = 0;
    int exit_code = 0;
    std::string time;         // UTC, ISO 8601
    std::uintmax_t size = 0;  // bytes of the artifact
};

inline std::filesystem::path sidecar_path(const std::filesystem::path& artifact) { return artifact.string() + ".json"; }

nlohmann::ordered_json to_json(const BuildRecord& rec);
BuildRecord build_record_from_json(const nlohmann::json& j);

// Writes the sidecar atomically; an existing sidecar (a forced rebuild) moves into "history",
// oldest first, so earlier builds stay visible.
Status write_build_record(const std::filesystem::path& artifact, const BuildRecord& rec);
// The artifact's builds, newest first: the current record, then its history (the GUI's list).
// A missing sidecar is an empty list.
Result<std::vector<BuildRecord>> read_build_history(const std::filesystem::path& artifact);

// The compiler's version line, queried once per compiler per process.
std::string compiler_version(const std::string& compiler, bool is_nvcc);

}  // namespace kiln::codecache
