// kiln-cli rebench MODULE.py: re-measure an Inductor output-code module (a cached compiled graph)
// on each chosen device. This RUNS THE MODULE'S PYTHON CODE (python MODULE.py, or -k for each
// kernel) inside one kiln-worker per device, with a Python that has torch.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "autotune/devices.hpp"
#include "autotune/inductor_module.hpp"
#include "autotune/tuning_pool.hpp"
#include "command_registry.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::autotune;

struct RebenchArgs {
    std::string module;
    std::string devices;
    std::string python;
    std::string cache_dir;
    bool kernels = false;
    bool json = false;
    double timeout = 600;
};

// The module's cache root: its folder's parent when it sits in <root>/<xx>/<key>.py.
std::string guess_cache_root(const std::filesystem::path& module) {
    if (const char* d = std::getenv("TORCHINDUCTOR_CACHE_DIR"); d && *d) return d;
    auto dir = std::filesystem::absolute(module).parent_path();
    return dir.filename().string().size() == 2 ? dir.parent_path().string() : dir.string();
}

int run_rebench(const RebenchArgs& a) {
    if (!std::filesystem::is_regular_file(a.module))
        return report_error(make_error(Errc::not_found, "no such module", a.module), 2);
    auto python = find_python_with_torch(a.python);
    if (!python.ok()) return report_error(python.error(), 1);
    std::vector<Device> devices;
    if (!a.devices.empty()) {
        auto d = parse_devices(a.devices);
        if (!d.ok()) return report_error(d.error(), 2);
        devices = *d;
    } else {
        devices = default_devices();
    }
    BenchmarkRequest req;
    req.kind = RequestKind::inductor_module;
    req.module_path = std::filesystem::absolute(a.module).string();
    req.python = python->python;
    req.cache_root = a.cache_dir.empty() ? guess_cache_root(a.module) : a.cache_dir;
    req.per_kernel = a.kernels;
    req.module_timeout_s = a.timeout;
    req.choice = std::filesystem::path(a.module).filename().string();
    PoolOptions po;
    po.devices = devices;
    po.timeouts.result = std::chrono::milliseconds(static_cast<long long>((a.timeout + 30) * 1000));
    TuningProcessPool pool(po);
    if (auto st = pool.start(); !st.ok()) return report_error(st.error(), 1);
    // One request per device: each worker takes exactly one (they are all free at the start).
    std::vector<BenchmarkRequest> reqs(devices.size(), req);
    auto results = pool.benchmark(reqs);
    pool.stop();
    nlohmann::ordered_json out;
    out["module"] = req.module_path;
    out["python"] = python->python;
    out["torch"] = python->torch_version;
    auto& per = out["devices"] = nlohmann::ordered_json::array();
    bool all_ok = true;
    for (const auto& r : results) {
        nlohmann::ordered_json d{{"device", r.device}, {"status", r.status}};
        if (r.ok()) {
            d["ms"] = r.ms;
            d["timings"] = r.details;
        } else {
            d["reason"] = r.reason;
            all_ok = false;
        }
        per.push_back(d);
    }
    if (a.json) {
        std::cout << out.dump(2) << "\n";
    } else {
        std::printf("%s (torch %s)\n", req.module_path.c_str(), python->torch_version.c_str());
        for (const auto& r : results) {
            if (!r.ok()) { std::printf("  %-8s %s: %s\n", r.device.c_str(), r.status.c_str(), r.reason.c_str()); continue; }
            if (r.details.contains("graph_ms")) std::printf("  %-8s graph %.4f ms\n", r.device.c_str(), r.ms);
            else
                for (const auto& k : r.details["kernels"])
                    std::printf("  %-8s %-40s %.4f ms %8.2f GB/s\n", r.device.c_str(), k["name"].get<std::string>().c_str(),
                                k["ms"].get<double>(), k["gb_per_s"].get<double>());
        }
    }
    return all_ok ? 0 : 1;
}

Registration reg("rebench", 72, [](CLI::App& app, Outcome& outcome) {
    auto args = std::make_shared<RebenchArgs>();
    auto* cmd = app.add_subcommand("rebench",
                                   "Re-benchmark an Inductor output-code module on each device. "
                                   "WARNING: this runs the module's Python code (python MODULE.py) with torch");
    cmd->add_option("module", args->module, "An output-code module (<cache root>/<xx>/<key>.py)")->required();
    cmd->add_option("--devices", args->devices, "GPUs to run on, e.g. 0,1 (default: CUDA_VISIBLE_DEVICES, else every GPU)");
    cmd->add_flag("-k,--kernels", args->kernels, "Time each kernel (python MODULE.py -k) instead of the whole graph");
    cmd->add_option("--python", args->python, "Python with torch (default: python3 on PATH)");
    cmd->add_option("--cache-dir", args->cache_dir, "TORCHINDUCTOR_CACHE_DIR for the run (default: the module's cache root)");
    cmd->add_option("--timeout", args->timeout, "Seconds allowed per device")->check(CLI::PositiveNumber);
    cmd->add_flag("--json", args->json, "Print per-device timings as JSON");
    cmd->callback([args, &outcome] { outcome.exit_code = run_rebench(*args); });
});

}  // namespace
}  // namespace kiln::cli
