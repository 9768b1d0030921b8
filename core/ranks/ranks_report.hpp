#pragma once
// `kiln-cli ranks`: where the ranks (or machines) of one job disagree (issue 43). Each autotuned op
// whose winner differs, with every rank's winner and the times each rank measured for the competing
// choices; the `.best_config`s that differ; the graph cache keys and output code that differ, with
// the key component or code line; and for each, whether it changes numerics or only speed
// (rank_effects.hpp).
//
// Ranks are compared only with ranks of the same GPU kind, timing-cache system and torch version:
// each such group is compared on its own and the report says so. A rank that cannot be read is
// named, and the rest are still compared.
//
// Choices are matched across ranks by template family and config, never by name: `triton_mm_59` in
// a table is a per-process counter, and a timing cache's `triton_mm-<module key>` hashes the
// kernel's source, which embeds the device index. `.best_config` files are named after their kernel
// module's hash (again the device index) and torch_key, so no two ranks share one: they are matched
// by their candidate set (configs_hash) and the config's keys.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ranks/rank_effects.hpp"
#include "ranks/rank_inputs.hpp"

namespace kiln::ranks {

// ---- autotuned ops ----
struct CompetingChoice {
    std::string identity;                   // family + sorted config
    std::string label;                      // "triton_mm (BLOCK 64×32×128, 5 stages, 4 warps)"
    std::vector<std::string> names;         // per rank: its own timing-cache name ("" where absent)
    std::vector<std::string> displays;      // per rank: "triton_mm_59 (...)" as its table named it
    std::vector<std::optional<double>> ms;  // per rank: the time it measured (nullopt: failed or absent)
};

struct OpDivergence {
    std::string op, inputs_key, inputs, precision;
    std::string strides;                     // "[384, 1], [1, 384]" from the inputs key
    std::vector<int> winner;                 // per rank: index into `competing` (-1: none)
    std::vector<CompetingChoice> competing;  // the union of the ranks' winners
    double spread_pct = 0;  // the largest, over ranks, of slowest / fastest competing choice - 1 (in %)
    Verdict verdict;
};

struct OpsComparison {
    std::size_t compared = 0;                    // ops every rank of the group autotuned
    std::vector<OpDivergence> differ;            // in the first rank's file order
    std::vector<std::string> not_on_every_rank;  // "op inputs precision: only on rank0, rank2"
};

// ---- .best_config ----
struct KernelConfigSet {
    std::string configs_hash;
    std::vector<std::string> keys;                             // the config's keys
    std::vector<std::vector<nlohmann::ordered_json>> configs;  // per rank, sorted
    std::vector<std::vector<std::string>> files;               // per rank
    std::size_t per_rank = 0;                                  // kernels of this candidate set on the first rank
    bool one_per_rank = false;                                 // one kernel on every rank: the match is exact
    Verdict verdict;
};

struct KernelConfigComparison {
    std::size_t sets = 0;                 // candidate sets found on any rank
    std::vector<std::size_t> kernels;     // per rank: .best_config files
    std::vector<KernelConfigSet> differ;  // sets whose configs are not the same on every rank
};

// ---- graph keys and output code ----
struct ComponentDifference {
    std::string component;            // "example_inputs[0]"
    std::vector<std::string> values;  // per rank: the line that differs (first rank: its own)
    std::string kind;                 // "device_index", "process_group", "rank", "other"
    Verdict verdict;
};

struct CodeDifference {
    std::string section;              // a kernel name, or "wrapper"
    std::string kind;                 // "config", "process_group", "rank", "other"
    std::vector<std::string> values;  // per rank: its config, or the first line that differs
    Verdict verdict;
};

struct GraphDivergence {
    std::string kind;              // "key" or "output_code"
    std::string what;              // "fx_graph 0/0 (1st)", "output code ['0_forward']"
    std::vector<std::string> ids;  // per rank: the key, or the module path
    std::vector<ComponentDifference> components;
    std::vector<CodeDifference> code;
    std::size_t device_index_only = 0;  // components or sections equal once the device index is normalised
    Verdict verdict;
};

struct GraphComparison {
    std::size_t keys = 0, keys_differ = 0;
    std::size_t modules = 0, modules_differ = 0;  // output code modules (matched by AOT ID)
    std::size_t modules_device_index_only = 0;    // of those that differ: only by the device index
    std::vector<GraphDivergence> differ;
};

// ---- the report ----
struct RankSummary {
    std::string label, folder, root, timing_cache, device, system_hash, torch_version;
    std::size_t ops = 0, best_configs = 0, keys = 0, outputs = 0;
    std::vector<std::string> warnings;
};

struct RankProblem {
    std::string rank;   // what the user named
    std::string error;  // why it could not be read
};

struct RankGroup {
    std::string label;  // "NVIDIA H100 80GB HBM3, torch 2.11.0+cu130"
    std::string device, torch_version, system_hash;
    std::vector<std::string> ranks;
    std::vector<std::size_t> members;  // indices into RanksReport::ranks
    OpsComparison ops;
    KernelConfigComparison kernels;
    GraphComparison graphs;
};

struct RanksReport {
    std::vector<RankSummary> ranks;
    std::vector<RankProblem> unreadable;
    std::vector<RankGroup> groups;
    std::vector<std::string> notes;  // e.g. ranks of different GPU kinds grouped apart

    std::size_t ops_compared() const;
    std::size_t ops_differ() const;
    // "ranks disagree on 10 of 16 autotuned ops" (summed over groups).
    std::string headline() const;
};

// Reads each rank; those that fail are named in `problems`. `cancel` (when set and true) stops before
// the next rank, with what was read so far; `progress` is told the ranks tried after each one (the GUI).
std::vector<LoadedRank> load_ranks(const std::vector<RankSpec>& specs, std::vector<RankProblem>& problems,
                                   const std::atomic<bool>* cancel = nullptr,
                                   const std::function<void(std::size_t tried)>& progress = {});
// The ranks compare only when two of them could be read: else the error both front ends give (the
// problems named, Errc::not_found when some rank could not be read).
Status check_two_readable(std::size_t readable, const std::vector<RankProblem>& problems);

// Groups the ranks by device, system hash and torch version, aligns each group's choices
// (align_choices) and compares each group.
RanksReport compare_ranks(std::vector<LoadedRank>& ranks, std::vector<RankProblem> problems);
// The ranks' indices per group, in the same order as compare_ranks' groups.
std::vector<std::vector<std::size_t>> group_ranks(const std::vector<LoadedRank>& ranks);

// Torch lists an op's choices in the same order on every rank (the same configs, generated the same
// way), so the k-th choice of an op is one config on every rank when the ranks' lists have the same
// families up to k. A config one rank's table gave for position k is then that choice's config on
// every rank, and a position no table covers is still one choice ("triton_mm#k"). Checked: where
// two ranks' tables give one position different configs, the op is left as each rank read it.
void align_choices(const std::vector<LoadedRank*>& group);

// The parts (rank_ops.cpp, rank_kernel_configs.cpp, rank_graphs.cpp); `group` in rank order.
OpsComparison compare_ops(const std::vector<const LoadedRank*>& group);
KernelConfigComparison compare_kernel_configs(const std::vector<const LoadedRank*>& group);
GraphComparison compare_graphs(const std::vector<const LoadedRank*>& group);

// "[384, 1], [1, 384]" from a timing cache inputs key ("" when it does not parse).
std::string strides_of(const std::string& inputs_key);
// "triton_mm (BLOCK 64×32×128, 5 stages, 4 warps)", "mm"
std::string choice_label(const RankChoice& c);

nlohmann::ordered_json to_json(const RanksReport& report);
nlohmann::ordered_json to_json(const Verdict& v);

}  // namespace kiln::ranks
