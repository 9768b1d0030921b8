#pragma once
// The normalized form every timing source is read into: ops (one autotuned operation at one
// input signature on one device) with their benchmarked choices. The GUI and `kiln-cli timings`
// both work on this, whatever file it came from.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "util/shared_value.hpp"

namespace kiln::timings {

// In the order a directory scan reports them: multi-choice sources first.
enum class SourceKind { timing_cache, session_log, mm_log, stderr_log, kernel_perf, best_config };
const char* source_kind_name(SourceKind k);

struct Source {
    std::string path;
    SourceKind kind = SourceKind::timing_cache;
    std::string device;  // e.g. "NVIDIA H100 80GB HBM3" where the file says
    int ops = 0;         // how many ops it contributed
};

// One source's view of a choice: the same choice has a name per source (`triton_mm_18` in a stderr
// table, `triton_mm-cq3rzx...` in the timing cache, `triton#4` in an mm log).
struct Sighting {
    SourceKind kind = SourceKind::timing_cache;
    std::string path;  // the source file
    std::string name;  // the choice's name there
    std::optional<double> ms;
};

// A compiled graph that runs a choice: its output code launches the template kernel this choice's
// config produced (graph_kernels / mark_used_by).
struct GraphUse {
    std::string key;     // the fxgraph key dir ("fej3ypleo5ccx...")
    std::string name;    // what `kiln-cli ls` calls it ("mm (model.py:94) forward float16[512, 512], ...")
    std::string kernel;  // the launched kernel ("triton_tem_fused_mm_0")
};

// A choice's parameters: a JSON object, shared by the choices that name one kernel module.
using Params = Shared<nlohmann::ordered_json>;
// The empty object a choice starts with (one for all).
const Params& no_params();

struct Choice {
    std::string name;                 // Inductor's choice name: "triton_mm-c2omz...", "mm-cqrj...", "triton_mm_4"
    std::optional<double> ms;         // null: not benchmarked, failed, or infinite
    Params params = no_params();      // BLOCK sizes, warps, stages...
    Shared<std::string> module_path;  // the choice's kernel module in the cache, when found
    std::string error;                // why it has no time (failed choice), when known
    // `ms` as a stderr table prints it (4 decimals): ratios come from `logged_pct` instead.
    bool ms_rounded = false;
    std::optional<double> logged_pct{};  // the stderr table's "% of best", which torch computes unrounded
    std::optional<double> spread_ms{};   // the measurement's noise (a re-tune's spread), where known
    std::vector<std::string> aliases{};  // its names in the other sources (join_sources)
    std::vector<Sighting> seen_in{};     // every source it was read from
    std::vector<GraphUse> used_by{};     // graph entries whose output code launches it (mark_used_by)
};

struct Op {
    std::string op;         // "mm", "addmm", "kernel_perf", "best_config"...
    std::string inputs;     // human form: "512x512 float16, 512x512 float16"
    std::string precision;  // float32 matmul precision ("highest") where recorded
    std::string device;
    std::vector<Choice> choices;
    std::string best;                      // name of the fastest choice ("" when none has a time)
    std::string source;                    // path of the file it came from (not part of the JSON schema)
    std::vector<std::string> also_from{};  // other files describing the same op (join_sources)
    // Sizes of each input ("512x512"), for matching the same op across sources and devices.
    std::vector<std::string> sizes;
    // Strides of each input ("512x1"), where the source says (the timing cache's key does; a stderr
    // table does not): torch keys one autotuning per layout, so two ops of the same sizes and other
    // strides stay two ops.
    std::vector<std::string> strides{};
    // An mm log's record names no op: only torch's (M, K, N) of it, taken as the second-to-last
    // input's first two sizes and the last input's last size (so (B, M, N) for bmm). Set on such ops,
    // whose `op` is then "mm_family" until join_sources finds the op it describes.
    std::vector<std::string> mm_log_key{};
};

// The (M, K, N) torch's mm log would write for `op` (see Op::mm_log_key); {} when its sizes do not say.
std::vector<std::string> mm_log_key_of(const Op& op);
// Whether sizes "32x128x64" with strides "8192x64x1" are row-major (a size-1 dim's stride is free).
bool row_major(const std::string& sizes, const std::string& strides);
// Whether every input of `op` is laid out row-major (so its strides need no mention).
bool contiguous_inputs(const Op& op);

struct TimingSet {
    std::vector<Source> sources;
    std::vector<Op> ops;
    std::vector<std::string> warnings;  // files that looked like timings but did not parse
};

// A benchmark time that can be compared: finite and not negative. A negative `.kernel_perf` is
// torch's `ms - benchmark(cloned args)` for kernels that mutate an input (the clone cost more than
// the kernel): it is shown, flagged, and never the best.
bool valid_time(const std::optional<double>& ms);
// Why a choice's time is not valid ("negative time ...", "NaN", "inf"); empty for a valid one or none.
std::string invalid_time_reason(const Choice& c);
// `.best_config` ops: the config a kernel settled on (its parameters, found_by_coordesc), not a
// benchmark with choices; shown as their own group, never as a failed choice.
bool is_per_kernel_config(const Op& op);

// Sets op.best to the choice with the smallest valid time (none for per-kernel configs).
void pick_best(Op& op);
const Choice* find_choice(const Op& op, const std::string& name);
// Fastest time of the op, if any choice has one.
std::optional<double> best_ms(const Op& op);
// Inductor's "% of best" (best / this x 100: the winner reads 100) from unrounded times; for a time
// only known to 4 decimals, the percentage torch logged beside it. nullopt without valid times.
std::optional<double> percent_of_best(const Op& op, const Choice& c);
// Same operation and input sizes (device, precision and dtypes may differ).
bool same_problem(const Op& a, const Op& b);

// "inf", "NaN", or the JSON of a value that should have been a time in ms.
std::string describe_bad_time(const nlohmann::ordered_json& v);
// A recorded time into `c` (util/json_get's check): a finite time >= 0 is c.ms; Infinity or NaN,
// Inductor's mark of a choice that failed, is "failed to benchmark"; anything else (a negative time,
// a string) is that choice's error, "not a time: ...", and never a time that could win (issue 42).
void set_choice_time(Choice& c, const nlohmann::ordered_json& v);

// {"sources": [...], "ops": [...]} exactly as documented for `kiln-cli timings --json`.
nlohmann::ordered_json to_json(const TimingSet& set);
// "{BLOCK_M: 64, num_warps: 4}" -> "BLOCK_M=64, num_warps=4" (Python's literal spelling of values).
std::string params_text(const nlohmann::ordered_json& params);
// A time in milliseconds as reports print it: "0.0123 ms".
std::string ms_text(double ms);

}  // namespace kiln::timings
