#include "tuning/rebench.hpp"

#include <filesystem>

#include "util/regular_file.hpp"
#include "worker/devices.hpp"
#include "worker/inductor_module.hpp"
#include "worker/tuning_pool.hpp"

namespace fs = std::filesystem;

namespace kiln::tuning {

std::optional<fs::path> module_cache_root(const fs::path& module) {
    auto dir = fs::absolute(module).parent_path();
    if (dir.filename().string().size() != 2) return std::nullopt;
    return dir.parent_path();
}

bool RebenchReport::all_ok() const {
    for (const auto& d : devices)
        if (!d.ok()) return false;
    return true;
}

Result<RebenchReport> rebench_module(const RebenchOptions& o) {
    if (!fs::is_regular_file(o.module)) return wrong_path_error(o.module, "no such module");
    // Refused before anything runs: a graph entry (a pickle) or any other file would be run as Python.
    KILN_TRY(OpenedFile file, open_regular_file(o.module));
    KILN_TRY(std::string head, read_prefix(file, 4, o.module));
    if (fs::path(o.module).extension() != ".py" || (!head.empty() && static_cast<unsigned char>(head[0]) == 0x80))
        return make_error(Errc::invalid_argument, "not an output-code module (a .py file Inductor wrote)", o.module,
                          "rebench runs <root>/<xx>/<key>.py; for a graph entry, `kiln-cli show ENTRY --kernels` "
                          "names its output module");
    if (o.cache_dir.empty())
        return make_error(Errc::invalid_argument, "no cache root for the run", o.module,
                          "pass the TORCHINDUCTOR_CACHE_DIR the module runs with");
    KILN_TRY(auto python, worker::find_python_with_torch(o.python));
    std::vector<worker::Device> devices;
    if (!o.devices.empty()) {
        KILN_TRY(devices, worker::parse_devices(o.devices));
    } else {
        devices = worker::default_devices();
    }
    worker::BenchmarkRequest req;
    req.kind = worker::RequestKind::inductor_module;
    req.module_path = fs::absolute(o.module).string();
    req.python = python.python;
    req.cache_root = o.cache_dir;
    req.per_kernel = o.kernels;
    req.module_timeout_s = o.timeout_s;
    req.choice = fs::path(o.module).filename().string();
    worker::PoolOptions po;
    po.devices = devices;
    po.timeouts.result = std::chrono::milliseconds(static_cast<long long>((o.timeout_s + 30) * 1000));
    worker::TuningProcessPool pool(po);
    KILN_CHECK(pool.start());
    // One request per device: each worker takes exactly one (they are all free at the start).
    std::vector<worker::BenchmarkRequest> reqs(devices.size(), req);
    auto results = pool.benchmark(reqs);
    pool.stop();
    RebenchReport out{req.module_path, python.python, python.torch_version, {}};
    for (const auto& r : results) {
        RebenchDevice d;
        d.device = r.device;
        d.status = r.status;
        if (r.ok()) {
            d.ms = r.ms;
            d.timings = r.details;
        } else {
            d.reason = r.reason;
        }
        out.devices.push_back(std::move(d));
    }
    return out;
}

nlohmann::ordered_json to_json(const RebenchReport& report) {
    nlohmann::ordered_json out;
    out["module"] = report.module;
    out["python"] = report.python;
    out["torch"] = report.torch;
    auto& per = out["devices"] = nlohmann::ordered_json::array();
    for (const auto& r : report.devices) {
        nlohmann::ordered_json d{{"device", r.device}, {"status", r.status}};
        if (r.ok()) {
            d["ms"] = r.ms;
            d["timings"] = r.timings;
        } else {
            d["reason"] = r.reason;
        }
        per.push_back(d);
    }
    return out;
}

Result<RebenchReport> rebench_report_from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("devices") || !j["devices"].is_array())
        return make_error(Errc::parse, "not a kiln-cli rebench report (no \"devices\" array)");
    try {
        RebenchReport r{j.value("module", ""), j.value("python", ""), j.value("torch", ""), {}};
        for (const auto& d : j["devices"]) {
            RebenchDevice dev;
            dev.device = d.value("device", "");
            dev.status = d.value("status", worker::BenchStatus::error);
            dev.ms = d.value("ms", 0.0);
            dev.timings = d.value("timings", nlohmann::json::object());
            dev.reason = d.value("reason", "");
            r.devices.push_back(std::move(dev));
        }
        return r;
    } catch (const nlohmann::json::exception& e) {
        return make_error(Errc::parse, std::string("not a kiln-cli rebench report: ") + e.what());
    }
}

Result<RebenchReport> read_rebench_report(const std::filesystem::path& path) {
    auto text = read_regular_file(path, 64ull << 20);
    if (!text.ok())
        return make_error(text.error().code, "cannot read it: " + text.error().message, path.string(),
                          "give the file `kiln-cli rebench --json` printed");
    auto parsed = nlohmann::json::parse(*text, nullptr, false);
    if (parsed.is_discarded())
        return make_error(Errc::invalid_argument, "no JSON in it (truncated?)", path.string(),
                          "give the file `kiln-cli rebench --json` printed");
    auto report = rebench_report_from_json(parsed);
    if (!report.ok())
        return make_error(report.error().code, report.error().message, path.string(), report.error().hint);
    return report;
}

}  // namespace kiln::tuning
