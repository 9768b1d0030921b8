#include "worker/inductor_module.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <regex>
#include <sstream>

#include "util/path_component.hpp"
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

namespace {

// A GB/s column: "928.00", "-3.5", "inf", "nan" (a zero-byte or zero-time kernel). JSON has no
// inf/NaN: those are null with the text kept.
void put_bandwidth(nlohmann::json& k, const std::string& text) {
    double v = std::strtod(text.c_str(), nullptr);
    if (std::isfinite(v)) k["gb_per_s"] = v;
    else {
        k["gb_per_s"] = nullptr;
        k["gb_per_s_text"] = text;
    }
}

void put_launcher(nlohmann::json& k, const std::smatch& m, std::size_t first) {
    if (!m[first].matched) return;
    k["regs"] = std::stoi(m[first].str());
    k["spills"] = std::stoi(m[first + 1].str());
    k["shared_bytes"] = std::stoll(m[first + 2].str());
}

constexpr const char* kNum = R"((\d+\.\d+))";
constexpr const char* kBw = R"((-?[0-9.]+|-?inf|nan))";
constexpr const char* kLauncher = R"((?:\s+(\d+) regs\s+(\d+) spills\s+(\d+) shared mem)?)";

}  // namespace

// Every form torch 2.9–2.15 prints (env-trace §3.1): the whole graph (seconds per call, then the
// peak memory line), -k (one line a kernel), -k -c (a header a kernel, then one line per config
// "  0.005ms ... @ XBLOCK: 2, num_warps: 4, ..."), and a kernel module run on its own
// ("0.006ms    0.006GB    1105.08GB/s").
Result<nlohmann::json> parse_module_output(const std::string& out, bool per_kernel) {
    const std::string text = strip_ansi(out);
    if (text.find("No kernel with benchmark functionality found") != std::string::npos)
        return make_error(Errc::unavailable,
                          "the module has no benchmark kernels (torch printed \"No kernel with benchmark "
                          "functionality found\"): it was not compiled with benchmark_kernel=True",
                          tail(out),
                          "per-kernel timing needs a module compiled with inductor config benchmark_kernel=True "
                          "(TORCHINDUCTOR_BENCHMARK_KERNEL=1: a new cache key); without -k the whole graph is timed");
    static const std::regex kernel_line(std::string(R"(^(.*?)\s*\b([A-Z]{3})\s+(\S+)\s+)") + kNum + R"(ms\s+)" + kNum +
                                        R"(\s*GB\s+)" + kBw + R"(\s*GB/s)" + kLauncher + R"(\s*$)");
    static const std::regex header_line(R"(^(.*?)\s*\b([A-Z]{3}) (c[a-z0-9]{9})\s*$)");
    static const std::regex config_line(std::string(R"(^\s+)") + kNum + R"(ms\s+)" + kNum + R"(\s*GB\s+)" + kBw +
                                        R"(\s*GB/s)" + kLauncher + R"( @ (.*)$)");
    static const std::regex module_line(std::string("^") + kNum + R"(ms\s+)" + kNum + R"(GB\s+)" + kBw + R"(GB/s\s*$)");
    static const std::regex seconds_line(R"(^\s*([0-9]+\.[0-9]+)\s*$)");
    static const std::regex peak_line(R"(^Peak GPU memory usage ([0-9.]+) MB\s*$)");
    std::istringstream in(text);
    std::string line;
    nlohmann::json j = nlohmann::json::object();
    nlohmann::json kernels = nlohmann::json::array();
    std::optional<double> seconds;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::smatch m;
        if (std::regex_match(line, m, config_line) && !kernels.empty() && kernels.back().contains("configs")) {
            nlohmann::json c{{"ms", std::stod(m[1].str())}, {"gb", std::stod(m[2].str())}, {"config", m[7].str()}};
            put_bandwidth(c, m[3].str());
            put_launcher(c, m, 4);
            auto& k = kernels.back();
            if (k["ms"].is_null() || c["ms"].get<double>() < k["ms"].get<double>()) k["ms"] = c["ms"];
            k["configs"].push_back(std::move(c));
        } else if (std::regex_match(line, m, kernel_line)) {
            nlohmann::json k{{"name", m[3].str()},
                             {"key", m[3].str()},
                             {"category", m[2].str()},
                             {"ms", std::stod(m[4].str())},
                             {"gb", std::stod(m[5].str())}};
            put_bandwidth(k, m[6].str());
            put_launcher(k, m, 7);
            kernels.push_back(std::move(k));
        } else if (std::regex_match(line, m, header_line)) {
            kernels.push_back({{"name", m[3].str()},
                               {"key", m[3].str()},
                               {"category", m[2].str()},
                               {"ms", nullptr},
                               {"configs", nlohmann::json::array()}});
        } else if (std::regex_match(line, m, module_line)) {
            nlohmann::json k{{"name", ""},
                             {"key", ""},
                             {"category", ""},
                             {"ms", std::stod(m[1].str())},
                             {"gb", std::stod(m[2].str())}};
            put_bandwidth(k, m[3].str());
            kernels.push_back(std::move(k));
            j["form"] = "kernel_module";
        } else if (std::regex_match(line, m, seconds_line) && !seconds) {
            seconds = std::stod(m[1].str());
        } else if (std::regex_match(line, m, peak_line)) {
            j["peak_gpu_mb"] = std::stod(m[1].str());
        }
    }
    nlohmann::json timed = nlohmann::json::array();  // a -k -c header without config lines has no time
    for (auto& k : kernels)
        if (!k["ms"].is_null()) timed.push_back(std::move(k));
    kernels = std::move(timed);
    if (!per_kernel && seconds) {
        j["graph_ms"] = *seconds * 1000.0;  // print_performance prints seconds per call
        return j;
    }
    if (!kernels.empty() && (per_kernel || j.contains("form"))) {
        j["kernels"] = std::move(kernels);
        return j;
    }
    if (per_kernel)
        return make_error(Errc::parse, "no per-kernel timings in the module's output", tail(out),
                          "per-kernel timing needs a module compiled with inductor config benchmark_kernel=True "
                          "(TORCHINDUCTOR_BENCHMARK_KERNEL=1)");
    return make_error(Errc::parse, "no graph timing in the module's output", tail(out),
                      "expected print_performance's seconds per call, or a kernel module's \"0.006ms 0.006GB "
                      "1105.08GB/s\"");
}

// "triton_poi_fused_..." -> "POI": the category torch 2.11's -k prints as UNK.
static std::string category_of(const std::string& kernel_name) {
    static const std::regex cat(R"(^triton_(poi|red|per|tem|for|spl)_)");
    std::smatch m;
    if (!std::regex_search(kernel_name, m, cat)) return {};
    std::string c = m[1].str();
    for (auto& ch : c) ch = static_cast<char>(ch - 'a' + 'A');
    return c;
}

void name_kernels(nlohmann::json& parsed, const std::filesystem::path& cache_root) {
    if (!parsed.contains("kernels") || cache_root.empty()) return;
    static const std::regex name_re(R"('kernel_name':\s*'([^']+)')");
    for (auto& k : parsed["kernels"]) {
        std::string key = k.value("key", "");
        if (key.size() < 3 || !is_plain_file_name(key)) continue;  // a key from the output names a folder as it is
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
                std::string c = category_of(m[1].str());
                if (k.value("category", "") == "UNK" && !c.empty()) k["category"] = c;
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
