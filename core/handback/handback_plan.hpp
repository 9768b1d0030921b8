#pragma once
// What a hand-back hands to torch, decided once for both front ends: `kiln-cli handback` prints it
// and writes from it; the GUI's Re-tune dialog shows it before anything is written (the buttons then
// run `kiln-cli handback`, which decides the same). Per op and GPU kind: complete (handed back, its
// failing choices written as Infinity with why) or left out with why (complete_ops' rule).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "handback/measured_op.hpp"

namespace kiln::handback {

// A choice of a complete op written as Infinity, as torch writes a choice that fails.
struct InfiniteChoice {
    std::string op;      // MeasuredOp::label()
    std::string device;  // the GPU kind the op is handed back for
    std::string choice;  // the timing cache's choice key
    std::string why;     // MeasuredChoice::infinite_why
};

// Every choice of `ops` written as Infinity, in the ops' and their choices' order.
std::vector<InfiniteChoice> infinite_choices(const std::vector<MeasuredOp>& ops);

struct HandbackPlan {
    Selection selection;  // complete ops (handed back) and ops left out with why
    std::vector<InfiniteChoice> infinite;
    // Every decision: each op (per GPU kind) is either handed back or left out.
    std::size_t decided() const { return selection.ops.size() + selection.skipped.size(); }
};

// What `kiln-cli handback ROOT --from RUN` decides: the recorded Triton key and CUDA version taken
// from ROOT's files, read beneath the opened root, where the run's do not reproduce their hash
// (fill_recorded_versions; none without a root: OpenedRoot{}), then complete_ops. Reads files
// beneath `root`: off the GUI's thread.
HandbackPlan plan_handback(RetuneRun run, const inductor::OpenedRoot& root,
                           const std::optional<SoftwareVersions>& python = std::nullopt,
                           std::optional<int> only_device = std::nullopt);

}  // namespace kiln::handback
