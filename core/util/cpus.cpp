#include "util/cpus.hpp"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace kiln {

namespace {

// The tightest CPU quota of this process's cgroup v2 and the cgroups above it; 0 when none. A container
// limited to 2 CPUs still shows the host's CPUs in its affinity mask: threads sized by the mask take turns.
unsigned cgroup_quota_cpus() {
    std::ifstream self("/proc/self/cgroup");
    std::string line, path;
    while (std::getline(self, line))
        if (line.rfind("0::", 0) == 0) path = line.substr(3);
    if (path.empty()) return 0;
    const std::filesystem::path base = "/sys/fs/cgroup";
    const std::string rel = path.substr(path.front() == '/' ? 1 : 0);
    unsigned best = 0;
    for (std::filesystem::path dir = rel.empty() ? base : base / rel;; dir = dir.parent_path()) {
        std::ifstream f(dir / "cpu.max");
        std::string max;
        if (f && std::getline(f, max))
            if (const unsigned n = cpus_of_quota(max); n && (!best || n < best)) best = n;
        if (dir == base || !dir.has_parent_path() || dir.parent_path() == dir) break;
    }
    return best;
}

}  // namespace

unsigned cpus_of_quota(std::string_view cpu_max) {
    const std::size_t space = cpu_max.find(' ');
    if (space == std::string_view::npos) return 0;
    unsigned long long quota = 0, period = 0;
    const std::string_view q = cpu_max.substr(0, space);
    std::string_view p = cpu_max.substr(space + 1);
    while (!p.empty() && (p.back() == '\n' || p.back() == ' ')) p.remove_suffix(1);
    if (std::from_chars(q.data(), q.data() + q.size(), quota).ptr != q.data() + q.size() || quota == 0) return 0;
    if (std::from_chars(p.data(), p.data() + p.size(), period).ptr != p.data() + p.size() || period == 0) return 0;
    return static_cast<unsigned>(std::min<unsigned long long>((quota + period - 1) / period, 1u << 20));
}

unsigned usable_cpus() {
    unsigned n = std::max(1u, std::thread::hardware_concurrency());
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
    if (const unsigned quota = cgroup_quota_cpus()) n = std::min(n, quota);
    return n;
}

}  // namespace kiln
