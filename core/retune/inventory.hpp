#pragma once
// `kiln-cli retune ROOT --list`: every autotuned op of a root's timing caches (`cache/<system
// hash>`) and every choice resolved to what Kiln would run, without a GPU: a Triton template
// choice to its benchmark module, signature, config, grid and compiled binary for the target
// arch; an extern choice to its cuBLAS call; anything else reported with why it cannot run.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "inductor/opened_root.hpp"
#include "retune/retune_report.hpp"
#include "util/result.hpp"

namespace kiln::retune {

struct TritonIndex;

struct InventoryOptions {
    std::optional<int> arch;  // the GPU's arch (e.g. 90); none: any binary the cache has
    std::string op_filter;    // keep ops whose name or inputs key contains this
    // The root's Triton index, read ahead (it needs no arch: a run reads it while the GPUs are
    // asked for theirs); null: read here.
    const TritonIndex* index = nullptr;
};

// Error (not_found): the root has no timing cache. A timing cache that cannot be read is a warning.
// Everything (timing caches, benchmark modules, the Triton cache) is read beneath the opened root,
// through its descriptor (issue 44); the report's paths name path_beneath(root, ...).
Result<RetuneReport> inventory(const inductor::OpenedRoot& root, const InventoryOptions& options = {});

// The choice key's stem and module key: "triton_mm-c<hash>" -> {"triton_mm", "c<hash>"}.
std::pair<std::string, std::string> split_choice_key(const std::string& key);

// An extern choice's stem with its keyword arguments, as torch 2.11 names them:
// "bias_addmm-alpha=1-beta=1" -> {"bias_addmm", {alpha: 1, beta: 1}}. Arguments that are not numbers
// are left out of `numbers` and named in `others`.
struct ExternStem {
    std::string base;
    std::map<std::string, double> numbers;
    std::vector<std::string> others;
};
ExternStem parse_extern_stem(const std::string& stem);

struct InventoryCounts {
    int choices = 0, runnable = 0, triton = 0, triton_with_binary = 0, extern_ops = 0;
};
InventoryCounts count_choices(const RetuneOp& op);

}  // namespace kiln::retune
