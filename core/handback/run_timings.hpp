#pragma once
// A re-tune's measurements as timings (timings/timing_model.hpp), so that `kiln-cli timings` can
// list a saved run and `--compare` can set it beside caches, logs and Redis: one op per op and
// device, named "<device name> (device <i>)", with each choice's spread kept as its noise.
#include <string>

#include "handback/retune_run.hpp"
#include "timings/timing_model.hpp"

namespace kiln::handback {

timings::TimingSet run_to_timing_set(const RetuneRun& run, const std::string& origin);

// Whether `text` looks like a retune result ({"devices": [...], "ops": [...]}).
bool looks_like_run(const std::string& text);

}  // namespace kiln::handback
