#include "autotune/inductor_module.hpp"

#include <filesystem>
#include <regex>
#include <sstream>

#include "autotune/spawn.hpp"

namespace kiln::autotune {

static std::string tail(const std::string& s, size_t n = 600) { return s.size() <= n ? s : "..." + s.substr(s.size() - n); }

Result<PythonTorch> find_python_with_torch(const std::string& configured) {
    std::string python = configured.empty() ? "python3" : configured;
    SpawnOptions o;
    o.argv = {python, "-c", "import torch; print(torch.__version__)"};
    auto r = run_process(o, std::chrono::seconds(120));
    if (!r.ok()) return std::move(r.error());
    if (r->exit_code == 127 && r->out.empty())
        return make_error(Errc::not_found, "no Python interpreter '" + python + "'", python,
                          "pass --python /path/to/python with torch installed");
    if (r->exit_code != 0) {
        std::string why = r->err;
        if (auto pos = why.rfind("Error:"); pos != std::string::npos) {
            auto start = why.rfind('\n', pos);
            why = why.substr(start == std::string::npos ? 0 : start + 1);
        }
        while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
        return make_error(Errc::not_found, "torch is not importable by " + python + ": " + tail(why, 300), python,
                          "re-benchmarking runs the module with PyTorch; pass --python /path/to/python with torch installed");
    }
    std::string ver = r->out;
    while (!ver.empty() && (ver.back() == '\n' || ver.back() == '\r')) ver.pop_back();
    return PythonTorch{python, ver};
}

Result<nlohmann::json> parse_module_output(const std::string& out, bool per_kernel) {
    std::istringstream in(out);
    std::string line;
    nlohmann::json j = nlohmann::json::object();
    if (per_kernel) {
        static const std::regex kernel_line(R"(^\s*(\S+)\s.*?([0-9.]+)ms\s+([0-9.]+)GB\s+([0-9.]+)GB/s)");
        auto& ks = j["kernels"] = nlohmann::json::array();
        while (std::getline(in, line)) {
            std::smatch m;
            if (std::regex_search(line, m, kernel_line))
                ks.push_back({{"name", m[1].str()}, {"ms", std::stod(m[2].str())}, {"gb", std::stod(m[3].str())},
                              {"gb_per_s", std::stod(m[4].str())}});
        }
        if (ks.empty()) return make_error(Errc::parse, "no per-kernel timings in the module's output", tail(out),
                                          "per-kernel timing needs a module compiled with inductor config benchmark_kernel=True");
        return j;
    }
    static const std::regex seconds_line(R"(^\s*([0-9]+\.[0-9]+)\s*$)");
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, seconds_line)) {
            j["graph_ms"] = std::stod(m[1].str()) * 1000.0;  // print_performance prints seconds per call
            return j;
        }
    }
    return make_error(Errc::parse, "no graph timing in the module's output", tail(out));
}

BenchmarkResult run_inductor_module(const BenchmarkRequest& req) {
    if (!std::filesystem::is_regular_file(req.module_path))
        return BenchmarkResult::failure("error", "no such module: " + req.module_path);
    SpawnOptions o;
    o.argv = {req.python.empty() ? "python3" : req.python, req.module_path};
    if (req.per_kernel) o.argv.push_back("-k");
    if (!req.cache_root.empty()) o.env["TORCHINDUCTOR_CACHE_DIR"] = req.cache_root;
    auto r = run_process(o, std::chrono::milliseconds(static_cast<long long>(req.module_timeout_s * 1000)));
    if (!r.ok()) return BenchmarkResult::failure("error", r.error().str());
    if (r->timed_out) return BenchmarkResult::failure("timeout", "module timed out after " + std::to_string(req.module_timeout_s) + " s");
    if (r->exit_code != 0)
        return BenchmarkResult::failure("error", "module " + describe_wait_status(r->wait_status) + ": " + tail(r->err));
    auto parsed = parse_module_output(r->out, req.per_kernel);
    if (!parsed.ok()) return BenchmarkResult::failure("error", parsed.error().str());
    BenchmarkResult res;
    res.details = *parsed;
    if (parsed->contains("graph_ms")) res.ms = (*parsed)["graph_ms"].get<double>();
    else {
        double sum = 0;
        for (const auto& k : (*parsed)["kernels"]) sum += k["ms"].get<double>();
        res.ms = sum;
    }
    res.stats = summarize({res.ms});
    const char* vis = std::getenv("CUDA_VISIBLE_DEVICES");
    res.device = vis ? std::string("cuda:") + vis : "default";
    return res;
}

}  // namespace kiln::autotune
