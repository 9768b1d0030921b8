#pragma once
// What one rank (or machine) of a job left behind, read for comparing it with the others (issue 43):
// its autotune timing cache (`<root>/cache/<system hash>`, torch's keys and full-precision times),
// the AUTOTUNE tables of its stderr (the choices' configs and torch's short names, joined to the
// timing cache by timings::join_sources), its `.best_config` files, and from its TORCH_TRACE the
// graph cache keys with their components and the output code of each graph.
//
// A rank is a folder: a rank folder holding `inductor/` (the cache root), `stderr*.log` and `trace/`,
// or a cache root itself (`cache/` in it; when it is named `inductor`, its parent is searched for
// the logs), or explicit paths.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/debug_lines.hpp"
#include "util/result.hpp"

namespace kiln::ranks {

struct RankSpec {
    std::filesystem::path path;                      // what the user named
    std::string label;                               // "" = the folder's name
    std::filesystem::path root;                      // explicit cache root ("" = found from path)
    std::vector<std::filesystem::path> stderr_logs;  // explicit ("" = path's stderr*.log)
    std::filesystem::path trace;                     // explicit TORCH_TRACE dir or log ("" = path's trace/)
};

// One choice of one op, as this rank names and timed it.
struct RankChoice {
    std::string name;     // the timing cache's name ("triton_mm-c2omz...", "mm-cqrj...")
    std::string display;  // timings::choice_display_name ("triton_mm_59 (BLOCK 64×32×128, 5 stages, 4 warps)")
    std::string family;   // "triton_mm", "mm", "bias_addmm"
    nlohmann::ordered_json params = nlohmann::ordered_json::object();  // the config (empty: unknown)
    std::string identity;       // family + config, the same on every rank: what choices are matched by
    std::optional<double> ms;   // nullopt: failed (Infinity in the file)
    bool config_known = false;  // an extern kernel, or a template whose config a table or module gave
};

// One autotuned op: torch's timing cache keys (op name, inputs key with strides, precision).
struct RankOp {
    std::string op, inputs_key, precision;
    std::string inputs;  // "1024x384 bfloat16, 384x1536 bfloat16"
    std::vector<RankChoice> choices;
    int winner = -1;  // index of the fastest valid choice
};

struct BestConfigFile {
    std::string path;
    std::string configs_hash;                                          // hash of the candidate configs
    nlohmann::ordered_json params = nlohmann::ordered_json::object();  // the config alone (XBLOCK, num_warps, ...)
};

struct GraphKeyEvent {
    std::string cache;       // "fx_graph", "aotautograd"
    std::string compile_id;  // "0/0"
    std::string state;       // "hit", "miss", "bypass"
    std::string key;
    std::vector<inductor::KeyComponent> components;
};

struct OutputModule {
    std::string aot_id;      // "['0_forward']" (the module's first line)
    std::string path;        // the module file torch wrote
    std::string compile_id;  // from the trace record, when read from one
    std::string text;
};

struct LoadedRank {
    std::string label;
    std::string folder, root;
    std::string timing_cache;  // the file read ("" when the root has none)
    std::string device;        // system.device.name
    std::string system_hash;
    std::string triton_key, cuda_version;  // system.version
    std::string torch_version;             // the trace's compilation_metrics pytorch_version
    std::vector<std::string> stderr_logs;
    std::string trace;
    std::vector<RankOp> ops;
    std::vector<BestConfigFile> best_configs;
    std::vector<GraphKeyEvent> keys;
    std::vector<OutputModule> outputs;
    std::vector<std::string> warnings;
};

// The folder's parts (no reading): the root, the logs, the trace. Errc::not_found when the path is
// missing or holds no cache root.
Result<RankSpec> resolve_rank(const RankSpec& spec);
// Reads everything of a resolved rank. A part that is absent is left empty; a part that is there but
// unreadable is a warning, unless nothing at all could be read (then the error).
Result<LoadedRank> load_rank(const RankSpec& spec);

// Sets config_known, identity and (when empty) display from the choice's family and params.
void describe_choice(RankChoice& c);

// "triton_mm(ACC_TYPE='tl.float32', BLOCK_K=32, ...)" with the config's keys sorted, or the family
// alone for a choice without one: what makes two ranks' choices the same.
std::string choice_identity_of(const std::string& family, const nlohmann::ordered_json& params);

}  // namespace kiln::ranks
