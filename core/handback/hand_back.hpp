#pragma once
// One hand-back (issue 31) from the ops to the targets, for `kiln-cli handback` and `kiln-cli retune
// --write/--publish/--pin`; the front end parses the flags and prints the report. The steps, in order:
//   check_request            the flags go together
//   choose_from_run          a run's shard, this machine's versions (--python), plan_handback's decision
//   | choose_from_fleet      or a fleet's ops for this machine's GPU kinds (fetched by the caller)
//   hand_back                --write (timing_cache_write), --publish (the caller's step), --pin (lookup_table)
// A step that fails sets the report's error and the later steps do nothing. Redis is kiln_remote's, a
// module above this one: the caller reads the fleet (remote::read_retuned) and passes the publish in.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "handback/handback_report.hpp"
#include "handback/measured_op.hpp"
#include "inductor/opened_root.hpp"

namespace kiln::handback {

struct HandbackRequest {
    inductor::OpenedRoot root;   // --write's target (written beneath its fd), the Triton modules for --pin
    bool write = false;          // --write
    bool publish = false;        // --publish URL
    bool fetch = false;          // --fetch URL (the fleet's ops instead of a run)
    std::string pin;             // --pin FILE
    std::optional<Shard> shard;  // --shard I/N
    std::string python;          // --python: this machine's Triton key and CUDA version
    std::optional<int> device;   // --device I: only this device's measurements
    bool any() const { return write || publish || fetch || !pin.empty(); }
};

// Errc::invalid_argument when the request asks for nothing or its parts do not go together.
Status check_request(const HandbackRequest& request);

// The GPU kinds of this machine (the driver's device names, each once): what --fetch fetches for.
Result<std::vector<std::string>> this_machines_gpu_kinds();

HandbackReport choose_from_run(const RetuneRun& run, const HandbackRequest& request);
// `ops`: the fleet's entries for `fetched.for_devices` (remote::for_devices); the request's shard is
// applied here. A fleet with none for this machine is Errc::not_found.
HandbackReport choose_from_fleet(FleetFetched fetched, std::vector<MeasuredOp> ops, const HandbackRequest& request);

// Publishes complete ops to the fleet (remote::publish_retuned).
using PublishStep = std::function<Result<PublishedOps>(const std::vector<MeasuredOp>&)>;

// Hands the chosen ops to each target the request names. No complete op is Errc::not_found.
void hand_back(HandbackReport& report, const HandbackRequest& request, const PublishStep& publish = {});

}  // namespace kiln::handback
