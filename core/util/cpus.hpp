#pragma once
// How many threads are worth starting for CPU-bound work.
#include <string_view>

namespace kiln {

// The CPUs this process may run on (taskset, cgroups' cpusets, a cgroup's CPU quota), not the machine's
// count: more threads than that only take turns. At least 1.
unsigned usable_cpus();

// The CPUs a cgroup v2 `cpu.max` line allows ("200000 100000": a quota of 200 ms of CPU per 100 ms is 2
// CPUs; a part rounds up): 0 when it sets no limit ("max 100000") or is not such a line.
unsigned cpus_of_quota(std::string_view cpu_max);

}  // namespace kiln
