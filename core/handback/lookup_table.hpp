#pragma once
// `--pin FILE`: an Inductor lookup table (torch 2.11, torch/_inductor/lookup_table/choices.py) that
// holds each op's measured winner, so every process that loads it compiles that kernel without
// autotuning: {"<device>+<input key>+<op>": [{"template_id": ..., <template kwargs>}]}, one config
// per key (a single choice is not autotuned). Keys are device-specific: LookupTableChoices tries
// "<props.gcnArchName>+..." first (on CUDA builds gcnArchName is the device name). The input key is
// str(tuple((dtype, list(shape), list(stride)) for each input)), which the timing cache's inputs key
// holds in another spelling. Load it with
//   torch._inductor.config.lookup_table.table = json.load(open(FILE))
//   torch._inductor.config.inductor_choices_class = LookupTableChoices
// The class in the config, not V.set_choices_handler alone: the handler is thread-local, and a
// backward graph compiled lazily in autograd's thread then autotunes (12 of 22 ops of a block did,
// H100, torch 2.11).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "handback/measured_op.hpp"
#include "inductor/opened_root.hpp"

namespace kiln::handback {

struct PinnedOp {
    std::string key;          // the lookup table key
    std::string label;        // MeasuredOp::label
    std::string device_name;  // who measured it
    std::string winner;       // the choice key
    double ms = 0;
    nlohmann::ordered_json config;  // the table's entry
};

struct LookupTable {
    std::vector<PinnedOp> pinned;
    std::vector<SkippedOp> skipped;
    nlohmann::ordered_json table() const;
};

// "((torch.float16, [512, 512], [512, 1]), (torch.float16, [512, 512], [512, 1]))" from the timing
// cache's "[('cuda', 'torch.float16', 512, 512, 512, 1, 0), ...]"; an error for keys it cannot map.
Result<std::string> lookup_input_key(const std::string& timing_inputs_key);

// `root`: the opened cache root whose benchmark modules (<xx>/<key>.py, read beneath its descriptor)
// give a Triton winner's parameters; without one (OpenedRoot{}) only a choice's known params do.
LookupTable build_lookup_table(const std::vector<MeasuredOp>& ops, const inductor::OpenedRoot& root);

// Writes json.dump(table, indent=2)'s bytes into a new file: an existing path is refused (Errc::busy)
// and left alone, and the file appears whole or not at all.
Status write_lookup_table(const std::filesystem::path& file, const LookupTable& table);

}  // namespace kiln::handback
