// kiln-cli rebench MODULE.py: re-measure an Inductor output-code module (a cached compiled graph)
// on each chosen device. This RUNS THE MODULE'S PYTHON CODE (python MODULE.py, or -k for each
// kernel) inside one kiln-worker per device, with a Python that has torch (tuning/rebench.hpp).
#include <cstdio>
#include <iostream>

#include "command_registry.hpp"
#include "frontend/open_cache.hpp"
#include "tuning/rebench.hpp"
#include "util/json_out.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::tuning;

struct RebenchArgs {
    RebenchOptions options;
    bool json = false;
};

void print_human(const RebenchReport& report) {
    std::printf("%s (torch %s)\n", report.module.c_str(), report.torch.c_str());
    for (const auto& r : report.devices) {
        if (!r.ok()) {
            std::printf("  %-8s %s: %s\n", r.device.c_str(), worker::bench_status_name(r.status), r.reason.c_str());
            continue;
        }
        if (r.timings.contains("graph_ms")) {
            std::printf("  %-8s graph %.4f ms\n", r.device.c_str(), r.ms);
            continue;
        }
        for (const auto& k : r.timings["kernels"])
            std::printf("  %-8s %-40s %.4f ms %8.2f GB/s\n", r.device.c_str(), k["name"].get<std::string>().c_str(),
                        k["ms"].get<double>(), k["gb_per_s"].get<double>());
    }
}

int run_rebench(const RebenchArgs& a) {
    RebenchOptions options = a.options;
    // The cache the module runs with: the one named, else the one it sits in, else Inductor's default
    // root (frontend's rule, the one every command follows: $TORCHINDUCTOR_CACHE_DIR, else <tmpdir>/...).
    if (options.cache_dir.empty()) {
        auto own = module_cache_root(options.module);
        options.cache_dir = (own ? *own : frontend::default_cache_root()).string();
    }
    auto report = rebench_module(options);
    if (!report) return fail(report.error());
    if (a.json) std::cout << dump_json(to_json(*report)) << "\n";
    else print_human(*report);
    return report->all_ok() ? 0 : 1;  // a device that failed: the work failed there (its reason is printed)
}

Registration rebench_command("rebench", 72, [](CLI::App& app, Outcome& outcome) {
    auto args = std::make_shared<RebenchArgs>();
    auto& o = args->options;
    auto* cmd = app.add_subcommand("rebench",
                                   "Re-benchmark an Inductor output-code module on each device. "
                                   "WARNING: this runs the module's Python code (python MODULE.py) with torch");
    cmd->add_option("module", o.module, "An output-code module (<cache root>/<xx>/<key>.py)")->required();
    cmd->add_option("--devices", o.devices, "GPUs to run on, e.g. 0,1 (default: CUDA_VISIBLE_DEVICES, else every GPU)");
    cmd->add_flag("-k,--kernels", o.kernels, "Time each kernel (python MODULE.py -k) instead of the whole graph");
    cmd->add_option("--python", o.python, "Python with torch (default: python3 on PATH)");
    cmd->add_option("--cache-dir", o.cache_dir,
                    "TORCHINDUCTOR_CACHE_DIR for the run (default: the cache root the module sits in, "
                    "<root>/<xx>/<key>.py, else $TORCHINDUCTOR_CACHE_DIR, else <tmpdir>/torchinductor_<user>)");
    cmd->add_option("--timeout", o.timeout_s, "Seconds allowed per device")->check(duration_seconds());
    cmd->add_flag("--json", args->json, "Print per-device timings as JSON");
    cmd->callback([args, &outcome] { outcome.exit_code = run_rebench(*args); });
});

}  // namespace
}  // namespace kiln::cli
