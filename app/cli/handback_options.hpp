#pragma once
// Handing re-tuned results to torch (issue 31), shared by `kiln-cli retune` and `kiln-cli handback`
// (the same from a saved `retune --json`): --write (this GPU's timing cache), --publish / --fetch
// (a fleet through Redis), --pin (an Inductor lookup table), --shard (which slice of the ops). The
// flags and the printing; what is done is core's handback/hand_back.hpp.
#include <optional>
#include <string>
#include <vector>

#include "command_registry.hpp"
#include "handback/measured_op.hpp"

namespace kiln::cli {

struct HandbackArgs {
    std::string root;                       // the cache root: --write's target, the Triton modules for --pin
    int root_fd = -1;                       // `root` as the command opened it (open_cache): --write goes beneath it
    bool write = false;                     // --write
    std::string publish;                    // --publish URL
    std::string fetch;                      // --fetch URL (instead of a run)
    std::string pin;                        // --pin FILE
    std::string shard;                      // --shard I/N
    std::string python;                     // --python: this machine's Triton key and CUDA version
    std::vector<std::string> device_names;  // --device-name (fetch without a driver)
    std::optional<int> device;              // --device I: only this device's measurements
    bool json = false;
    bool text_to_stderr = false;  // the summary on stderr (retune --json: the report owns stdout)
    bool any() const { return write || !publish.empty() || !fetch.empty() || !pin.empty(); }
};

// The flags, for a command that has its own ROOT positional and --json.
void add_handback_options(CLI::App* cmd, HandbackArgs& a, bool with_fetch);

// --shard's slice (nullopt without --shard); a command that measures keeps only its ops
// (handback::shard_run) before measuring.
Result<std::optional<handback::Shard>> shard_arg(const HandbackArgs& a);

// Does what the flags ask with `run` (or with the fleet's entries under --fetch); prints what was
// written where, for which device, and what was skipped and why; returns the exit status.
int run_handback(const HandbackArgs& a, const std::optional<handback::RetuneRun>& run);

}  // namespace kiln::cli
