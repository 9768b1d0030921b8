#include "worker/inductor_module.hpp"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "util/process.hpp"
#include "util/regular_file.hpp"

namespace kiln::worker {

static std::string tail(const std::string& s, size_t n = 600) {
    return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

Result<PythonTorch> find_python_with_torch(const std::string& configured) {
    std::string python = configured.empty() ? "python3" : configured;
    auto r = run_process({.argv = {python, "-c", "import torch; print(torch.__version__)"}},
                         {.timeout = std::chrono::seconds(120)});
    if (!r.ok() && r.error().code == Errc::not_found)
        return make_error(Errc::unavailable, "no Python interpreter '" + python + "'", python,
                          "pass --python /path/to/python with torch installed");
    if (!r.ok()) return std::move(r.error());
    if (r->exit_status != 0) {
        std::string why = r->err;
        if (auto pos = why.rfind("Error:"); pos != std::string::npos) {
            auto start = why.rfind('\n', pos);
            why = why.substr(start == std::string::npos ? 0 : start + 1);
        }
        while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
        return make_error(
            Errc::unavailable, "torch is not importable by " + python + ": " + tail(why, 300), python,
            "re-benchmarking runs the module with PyTorch; pass --python /path/to/python with torch installed");
    }
    std::string ver = r->out;
    while (!ver.empty() && (ver.back() == '\n' || ver.back() == '\r')) ver.pop_back();
    return PythonTorch{python, ver};
}

// Inductor colours slow kernels red (ANSI escapes); the numbers sit inside them.
static std::string strip_ansi(const std::string& s) {
    static const std::regex esc("\x1b\\[[0-9;]*m");
    return std::regex_replace(s, esc, "");
}

Result<nlohmann::json> parse_module_output(const std::string& out, bool per_kernel) {
    std::istringstream in(strip_ansi(out));
    std::string line;
    nlohmann::json j = nlohmann::json::object();
    if (per_kernel) {
        // wrapper_benchmark.benchmark_all_kernels, one line a kernel:
        // "<benchmark name> <CAT> <key[:10]> 0.007ms  0.006 GB  928.00GB/s  31 regs  0 spills  32 shared mem"
        static const std::regex kernel_line(
            R"(^(.*?)\s*\b([A-Z]{3})\s+(\S+)\s+([0-9.]+)ms\s+([0-9.]+)\s*GB\s+([0-9.]+)\s*GB/s(?:\s+(\d+)\s+regs\s+(\d+)\s+spills\s+(\d+)\s+shared mem)?)");
        auto& ks = j["kernels"] = nlohmann::json::array();
        while (std::getline(in, line)) {
            std::smatch m;
            if (!std::regex_search(line, m, kernel_line)) continue;
            nlohmann::json k{{"name", m[3].str()},          {"key", m[3].str()},
                             {"category", m[2].str()},      {"ms", std::stod(m[4].str())},
                             {"gb", std::stod(m[5].str())}, {"gb_per_s", std::stod(m[6].str())}};
            if (m[7].matched) {
                k["regs"] = std::stoi(m[7].str());
                k["spills"] = std::stoi(m[8].str());
                k["shared_bytes"] = std::stoi(m[9].str());
            }
            ks.push_back(std::move(k));
        }
        if (ks.empty())
            return make_error(Errc::parse, "no per-kernel timings in the module's output", tail(out),
                              "per-kernel timing needs a module compiled with inductor config benchmark_kernel=True "
                              "(TORCHINDUCTOR_BENCHMARK_KERNEL=1)");
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

void name_kernels(nlohmann::json& parsed, const std::filesystem::path& cache_root) {
    if (!parsed.contains("kernels") || cache_root.empty()) return;
    static const std::regex name_re(R"('kernel_name':\s*'([^']+)')");
    for (auto& k : parsed["kernels"]) {
        std::string key = k.value("key", "");
        if (key.size() < 3) continue;
        // The kernel's module is <root>/<key[1:3]>/<key>.py (PyCodeCache); the line shows key[:10].
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(cache_root / key.substr(1, 2), ec)) {
            std::string f = e.path().filename().string();
            if (f.rfind(key, 0) != 0 || e.path().extension() != ".py") continue;
            std::string text = read_regular_file(e.path(), 64u << 20).value_or({});
            std::smatch m;
            if (std::regex_search(text, m, name_re)) {
                k["name"] = m[1].str();
                k["module"] = e.path().string();
            }
            break;
        }
    }
}

BenchmarkResult run_inductor_module(const BenchmarkRequest& req) {
    if (!std::filesystem::is_regular_file(req.module_path))
        return BenchmarkResult::failure(BenchStatus::error, "no such module: " + req.module_path);
    ProcessOptions o;
    o.argv = {req.python.empty() ? "python3" : req.python, req.module_path};
    if (req.per_kernel) o.argv.push_back("-k");
    if (!req.cache_root.empty()) o.env["TORCHINDUCTOR_CACHE_DIR"] = req.cache_root;
    auto r =
        run_process(o, {.timeout = std::chrono::milliseconds(static_cast<long long>(req.module_timeout_s * 1000))});
    if (!r.ok()) return BenchmarkResult::failure(BenchStatus::error, r.error().str());
    if (r->timed_out)
        return BenchmarkResult::failure(BenchStatus::timeout,
                                        "module timed out after " + std::to_string(req.module_timeout_s) + " s");
    if (r->exit_status != 0)
        return BenchmarkResult::failure(BenchStatus::error,
                                        "module " + describe_wait_status(r->wait_status) + ": " + tail(r->err));
    auto parsed = parse_module_output(r->out, req.per_kernel);
    if (!parsed.ok()) return BenchmarkResult::failure(BenchStatus::error, parsed.error().str());
    name_kernels(*parsed, req.cache_root);
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

}  // namespace kiln::worker
