#pragma once
// A step of run_retune (retune/run.hpp): the inventory's runnable choices as worker requests. Each
// op's extern choice is its reference: every worker computes it once on its own device and checks
// each choice's output against it there, so no choice waits for another; the references go first
// (their times lead the table) and every other choice carries its op's.
#include <cstddef>
#include <vector>

#include "retune/run.hpp"
#include "worker/protocol.hpp"

namespace kiln::retune {

struct RetuneJob {
    std::size_t op = 0, choice = 0;  // indices into the report
    worker::BenchmarkRequest request;
};

struct RetuneJobs {
    std::vector<RetuneJob> jobs;    // the references first
    std::vector<int> reference_of;  // per op: its reference choice, -1 when it has none
};

// A choice whose request cannot be made becomes not runnable, with why; RunOptions::rewrite is applied.
RetuneJobs plan_jobs(RetuneReport& report, const RunOptions& o);

}  // namespace kiln::retune
