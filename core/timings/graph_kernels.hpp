#pragma once
// "What runs for this graph": the kernels a graph entry's output code launches, each joined to its
// kernel module, its `.best_config` (the per-kernel config autotuning or coordinate descent settled
// on) and, for a template kernel, the autotune row it came from (env-trace §4.5–4.7): the timing
// cache's `triton_mm-<choice module key>` whose module holds the same config_args, num_stages and
// num_warps at the same problem size. Value types, for `kiln-cli show --kernels`, the GUI's Summary
// tab and the Autotune view's "used by graph" mark.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/graph_entry.hpp"
#include "inductor/opened_root.hpp"
#include "inductor/output_code.hpp"
#include "timings/timing_model.hpp"
#include "util/result.hpp"

namespace kiln::timings {

struct AutotuneMatch {
    std::string op;      // "mm"
    std::string inputs;  // "512x512 float16, 512x512 float16"
    std::string device;
    std::string choice;        // "triton_mm-cy2dwohf..."
    std::string display;       // choice_display_name: "triton_mm_4 (BLOCK 64×32×128, 5 stages, 4 warps)"
    std::optional<double> ms;  // its benchmarked time
    std::size_t rank = 0;      // 1 = fastest of the op's valid times
    std::size_t valid = 0;     // choices with a valid time
    std::string next_choice;   // the runner-up (rank 1) or the winner (otherwise)
    std::string next_display;  // its choice_display_name
    std::optional<double> next_ms;
    std::string source;                // the timing cache file
    std::vector<std::string> aliases;  // the choice's names in the other sources
    std::size_t op_index = 0;          // where it is in the TimingSet searched
    std::size_t choice_index = 0;
};

struct GraphKernel {
    inductor::KernelRef ref;
    std::string module_path;  // the kernel module in the root ("" when not found)
    nlohmann::ordered_json params = nlohmann::ordered_json::object();  // from the module's decorator
    std::string best_config_path;
    nlohmann::ordered_json best_config;     // its JSON (null: none)
    std::vector<std::string> fused_ops;     // templates: ops of the name beyond the template's own
    std::optional<AutotuneMatch> autotune;  // templates: the autotune table row
    std::string note;                       // why a join did not happen
};

struct GraphKernels {
    std::string output_module;  // the output module's path, or "(the entry's source_code)"
    std::vector<GraphKernel> kernels;
};

// `set`: the timings to join templates against (collect_timings over the root); may be null.
Result<GraphKernels> graph_kernels(const std::filesystem::path& root, const inductor::GraphEntry& entry,
                                   const TimingSet* set);
// The same beneath an opened root: the modules and configs read through its descriptor.
Result<GraphKernels> graph_kernels(const inductor::OpenedRoot& root, const inductor::GraphEntry& entry,
                                   const TimingSet* set);

// What a GEMM template kernel's module says of the problem it was generated for: "M = 1024",
// "stride_am = 384", ... in its body and arg_A's "*bf16" in its signature. Empty fields where the
// module does not say (symbolic sizes).
struct TemplateProblem {
    std::string a_size, b_size;      // "MxK", "KxN"
    std::string a_stride, b_stride;  // "am x ak" ("aq x am x ak" for bmm), "bk x bn"
    std::string a_dtype, b_dtype;    // "bfloat16"
};
TemplateProblem template_problem(const std::string& module_text);
// Whether `op` (its last two inputs: A and B) is the problem the module was generated for.
bool problem_fits(const TemplateProblem& p, const Op& op);

// The choice of `set` that a template kernel module's config came from: same params, and the op the
// module's sizes, strides and dtypes describe (never another op of the same kind that happens to have
// a choice of that config); prefers ops on `device` when given.
std::optional<AutotuneMatch> find_template_choice(const TimingSet& set, const std::string& op_name,
                                                  const nlohmann::ordered_json& params, const TemplateProblem& problem,
                                                  const std::string& device);

// What autotuning decided and why this kernel runs, in one sentence for every front end: "autotune of
// mm(...) on DEV chose this template, NAME: 0.0058 ms, fastest of 20 valid choices (runner-up mm:
// 0.0061 ms, +6.1%)", or where another choice won the benchmark and the template runs because Inductor
// fused the epilogue into it: "autotune of mm(...) on DEV chose mm (0.0061 ms); this template, NAME
// (0.0065 ms, rank 2 of 20, +6.6%), runs because Inductor fused the epilogue (relu) into it".
// "" without an autotune row.
std::string describe_autotune(const GraphKernel& k);

nlohmann::ordered_json to_json(const GraphKernels& k);

// The cache root an entry file lies in (the parent of its `fxgraph/` or `aotautograd/` ancestor).
std::optional<std::filesystem::path> entry_root(const std::filesystem::path& entry_file);

}  // namespace kiln::timings
