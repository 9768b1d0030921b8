#pragma once
// How many threads are worth starting for CPU-bound work.

namespace kiln {

// The CPUs this process may run on (taskset, cgroups' cpusets), not the machine's count: more
// threads than that only take turns. At least 1.
unsigned usable_cpus();

}  // namespace kiln
