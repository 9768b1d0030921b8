// bench_decode REPEATS FILE...: maps and decodes every file REPEATS times, keeping all of one
// round's documents alive together (as a cache browser holding them open would), and prints
// one JSON line: bytes, the median wall and CPU seconds of a round, the CPU seconds of the first
// (cold) round, and the peak RSS of the process.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "pickle/decoder.hpp"

// CPU seconds of this process (user + system): on a shared, loaded machine wall time mostly
// measures the scheduler; both sides are single-threaded, so CPU time compares the work.
static double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_decode REPEATS FILE...\n");
        return 2;
    }
    int repeats = std::max(1, std::atoi(argv[1]));
    std::vector<double> seconds, cpu;
    std::uint64_t bytes = 0;
    std::size_t nodes = 0;
    for (int r = 0; r < repeats; ++r) {
        std::vector<std::shared_ptr<const kiln::pickle::Document>> docs;
        auto t0 = std::chrono::steady_clock::now();
        double c0 = cpu_seconds();
        for (int i = 2; i < argc; ++i) {
            auto doc = kiln::pickle::decode_file(argv[i]);
            if (!doc.ok()) {
                std::fprintf(stderr, "bench_decode: %s\n", doc.error().str().c_str());
                return 1;
            }
            docs.push_back(std::move(doc).value());
        }
        cpu.push_back(cpu_seconds() - c0);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        if (r == 0)
            for (const auto& d : docs) {
                bytes += d->bytes().size();
                nodes += d->node_count();
            }
    }
    const double first_cpu = cpu.front();
    std::sort(seconds.begin(), seconds.end());
    std::sort(cpu.begin(), cpu.end());
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    nlohmann::json out{{"impl", "kiln"},
                       {"files", argc - 2},
                       {"bytes", bytes},
                       {"nodes", nodes},
                       {"median_s", seconds[seconds.size() / 2]},
                       {"min_s", seconds.front()},
                       {"median_cpu_s", cpu[cpu.size() / 2]},
                       {"first_cpu_s", first_cpu},
                       {"peak_rss_bytes", static_cast<std::uint64_t>(ru.ru_maxrss) * 1024}};
    std::printf("%s\n", out.dump().c_str());
    return 0;
}
