// bench_codecache CACHE_DIR [KERNELS] [COLD]: latency of cache hits and throughput of cold compiles.
//  - first-load hit: key computation + lookup + dlopen of a kernel this process has not loaded;
//  - warm hit: the same request again (library already loaded);
//  - cold compile of COLD (16) new kernels: one after another vs CompilePool (one worker per core).
// The population step runs in a child process so every measured dlopen is a first load.
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "codecache/compile_pool.hpp"

using namespace kiln::codecache;
using Clock = std::chrono::steady_clock;

namespace {

double us_since(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

std::string kernel_source(const std::string& tag, int i) {
    return "extern \"C\" void kernel_" + std::to_string(i) +
           "(float* y, const float* x, int n) {\n"
           "  // " +
           tag + "\n  for (int j = 0; j < n; ++j) y[j] = x[j] * " + std::to_string(i) + ".5f + y[j];\n}\n";
}

std::string loadavg() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

struct Stats {
    double median, p99;
};
Stats stats(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 99 / 100)]};
}

double cold_sequential(const CodeCacheOptions& base, const std::string& tag, int n) {
    CodeCacheOptions o = base;
    CodeCache cache(o);
    auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) {
        auto r = cache.compile(CompileRequest{.source = kernel_source(tag, i)});
        if (!r.ok() || r->hit) {
            std::fprintf(stderr, "cold compile failed or hit\n");
            std::exit(1);
        }
    }
    return us_since(t0) / 1e6;
}

double cold_pool(const CodeCacheOptions& base, const std::string& tag, int n) {
    CodeCache cache(base);
    auto t0 = Clock::now();
    CompilePool pool(cache);
    std::vector<std::shared_future<kiln::Result<CompileOutcome>>> futures;
    for (int i = 0; i < n; ++i) futures.push_back(pool.compile_async(CompileRequest{.source = kernel_source(tag, i)}));
    for (auto& f : futures)
        if (!f.get().ok() || f.get()->hit) {
            std::fprintf(stderr, "pool compile failed or hit\n");
            std::exit(1);
        }
    return us_since(t0) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_codecache CACHE_DIR [KERNELS] [COLD]\n");
        return 2;
    }
    std::filesystem::path dir = argv[1];
    int kernels = argc > 2 ? std::atoi(argv[2]) : 1000;
    int cold = argc > 3 ? std::atoi(argv[3]) : 16;
    cpu_set_t set;
    if (kernels < 1 || cold < 1) {
        std::fprintf(stderr, "KERNELS and COLD must be positive numbers\n");
        return 2;
    }
    unsigned cores =
        sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : std::thread::hardware_concurrency();
    std::printf("machine: %u cores, load average at start %s\n", cores, loadavg().c_str());

    // Population (untimed; reused across runs): -O1 keeps 1,000 compiles affordable.
    CodeCacheOptions hot{.root = dir / "hot", .opt_level = "-O1", .march = ""};
    auto populate_t0 = Clock::now();
    pid_t pid = fork();
    if (pid < 0) {
        std::perror("fork");
        return 1;
    }
    if (pid == 0) {
        CodeCache cache(hot);
        CompilePool pool(cache);
        std::vector<std::shared_future<kiln::Result<CompileOutcome>>> fs;
        for (int i = 0; i < kernels; ++i)
            fs.push_back(pool.compile_async(CompileRequest{.source = kernel_source("hot", i)}));
        for (auto& f : fs)
            if (!f.get().ok()) {
                std::fprintf(stderr, "%s\n", f.get().error().str().c_str());
                _exit(1);
            }
        _exit(0);
    } else {
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::fprintf(stderr, "population failed\n");
            return 1;
        }
    }
    std::printf("population of %d kernels: %.1f s (0 when already cached)\n\n", kernels, us_since(populate_t0) / 1e6);

    CodeCache cache(hot);
    std::vector<CompileRequest> reqs;
    for (int i = 0; i < kernels; ++i) reqs.push_back(CompileRequest{.source = kernel_source("hot", i)});
    std::vector<double> first, warm, key_only;
    for (int i = 0; i < kernels; ++i) {
        auto t0 = Clock::now();
        auto k = cache.key_for(reqs[i]);
        key_only.push_back(us_since(t0));
        if (!k.ok()) return 1;
    }
    for (int i = 0; i < kernels; ++i) {
        CompileOutcome out;
        auto t0 = Clock::now();
        auto lib = cache.compile_and_load(reqs[i], &out);
        first.push_back(us_since(t0));
        if (!lib.ok() || !out.hit) {
            std::fprintf(stderr, "expected a hit for kernel %d\n", i);
            return 1;
        }
    }
    for (int i = 0; i < kernels; ++i) {
        auto t0 = Clock::now();
        auto lib = cache.compile_and_load(reqs[i]);
        warm.push_back(us_since(t0));
        if (!lib.ok()) return 1;
    }
    auto k = stats(key_only), f = stats(first), w = stats(warm);
    std::printf("%-40s %10s %10s %10s %14s\n", ("hit latency (" + std::to_string(kernels) + " kernels)").c_str(),
                "median us", "p99 us", "target us", "median/target");
    std::printf("%-40s %10.2f %10.2f %10s %14s\n", "key computation only (baseline)", k.median, k.p99, "-", "-");
    std::printf("%-40s %10.2f %10.2f %10d %14.2f\n", "first-load hit (key+lookup+dlopen)", f.median, f.p99, 300,
                f.median / 300);
    std::printf("%-40s %10.2f %10.2f %10d %14.2f\n", "warm hit (already loaded)", w.median, w.p99, 20, w.median / 20);

    // Cold compiles, alternated and repeated; each run uses fresh sources (tag) so nothing hits.
    CodeCacheOptions coldopt{.root = dir / "cold"};
    std::vector<double> seq, par;
    std::string nonce = std::to_string(::getpid()) + "-" + std::to_string(Clock::now().time_since_epoch().count());
    for (int rep = 0; rep < 3; ++rep) {
        seq.push_back(cold_sequential(coldopt, "seq" + std::to_string(rep) + nonce, cold));
        par.push_back(cold_pool(coldopt, "par" + std::to_string(rep) + nonce, cold));
    }
    std::sort(seq.begin(), seq.end());
    std::sort(par.begin(), par.end());
    std::printf("\n%-40s %10s %10s %10s %14s\n",
                ("cold compile, " + std::to_string(cold) + " kernels (median of 3)").c_str(), "seconds", "per kernel",
                "speed-up", "target");
    std::printf("%-40s %10.2f %10.3f %10s %14s\n", "sequential (baseline)", seq[1], seq[1] / cold, "1.00x", "-");
    std::printf("%-40s %10.2f %10.3f %9.2fx %14s\n", ("CompilePool, " + std::to_string(cores) + " workers").c_str(),
                par[1], par[1] / cold, seq[1] / par[1], ">= 1.8x");
    std::printf("\nload average at end %s\n", loadavg().c_str());
    std::filesystem::remove_all(dir / "cold");
    return 0;
}
