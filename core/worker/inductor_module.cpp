#include "worker/inductor_module.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string_view>

#include "util/path_component.hpp"
#include "util/process.hpp"
#include "util/regular_file.hpp"
#include "util/text_scan.hpp"

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

// Inductor colours slow kernels red (ANSI escapes); the numbers sit inside them. Each
// `\x1b\[[0-9;]*m` is removed.
static std::string strip_ansi(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
            const std::size_t end = scan::skip_while(s, i + 2, [](char c) { return scan::is_digit(c) || c == ';'; });
            if (end < s.size() && s[end] == 'm') {
                i = end;
                continue;
            }
        }
        out += s[i];
    }
    return out;
}

namespace {

// A GB/s column: "928.00", "-3.5", "inf", "nan" (a zero-byte or zero-time kernel). JSON has no
// inf/NaN: those are null with the text kept.
void put_bandwidth(nlohmann::json& k, std::string_view text) {
    double v = std::strtod(std::string(text).c_str(), nullptr);
    if (std::isfinite(v)) k["gb_per_s"] = v;
    else {
        k["gb_per_s"] = nullptr;
        k["gb_per_s_text"] = text;
    }
}

double number_of(std::string_view text) { return std::strtod(std::string(text).c_str(), nullptr); }

// The columns of torch's benchmark lines, scanned by hand (the output of a module from the cache may
// hold any line). Each returns the end of what it read, or npos.
constexpr std::size_t kNone = std::string_view::npos;

// `\d+\.\d+`
std::size_t decimal_end(std::string_view l, std::size_t pos) {
    const std::size_t dot = scan::skip_digits(l, pos);
    if (dot == pos || !scan::has_at(l, dot, ".")) return kNone;
    const std::size_t end = scan::skip_digits(l, dot + 1);
    return end == dot + 1 ? kNone : end;
}

// `-?[0-9.]+|-?inf|nan`
std::size_t bandwidth_end(std::string_view l, std::size_t pos) {
    const std::size_t p = scan::has_at(l, pos, "-") ? pos + 1 : pos;
    const std::size_t end = scan::skip_while(l, p, [](char c) { return scan::is_digit(c) || c == '.'; });
    if (end > p) return end;
    if (scan::has_at(l, p, "inf")) return p + 3;
    return scan::has_at(l, pos, "nan") ? pos + 3 : kNone;
}

// `\s+`: the end of a non-empty run of spaces at pos.
std::size_t spaces_end(std::string_view l, std::size_t pos) {
    const std::size_t end = scan::skip_spaces(l, pos);
    return end == pos ? kNone : end;
}

// Registers, spills and shared memory: `\s+(\d+) regs\s+(\d+) spills\s+(\d+) shared mem`.
struct LauncherColumns {
    std::string_view regs, spills, shared;
};
std::size_t launcher_end(std::string_view l, std::size_t pos, LauncherColumns& out) {
    std::string_view* fields[] = {&out.regs, &out.spills, &out.shared};
    const std::string_view words[] = {" regs", " spills", " shared mem"};
    for (std::size_t i = 0; i < 3; ++i) {
        const std::size_t digits = spaces_end(l, pos);
        if (digits == kNone) return kNone;
        const std::size_t end = scan::skip_digits(l, digits);
        if (end == digits || !scan::has_at(l, end, words[i])) return kNone;
        *fields[i] = l.substr(digits, end - digits);
        pos = end + words[i].size();
    }
    return pos;
}

// The columns every timed line has: `(\d+\.\d+)ms\s+(\d+\.\d+)\s*GB\s+(BW)\s*GB/s`.
struct TimedColumns {
    std::string_view ms, gb, bw;
    std::optional<LauncherColumns> launcher;
};
std::size_t timed_end(std::string_view l, std::size_t pos, TimedColumns& out) {
    const std::size_t ms_end = decimal_end(l, pos);
    if (ms_end == kNone || !scan::has_at(l, ms_end, "ms")) return kNone;
    const std::size_t gb = spaces_end(l, ms_end + 2);
    const std::size_t gb_end = gb == kNone ? kNone : decimal_end(l, gb);
    if (gb_end == kNone || !scan::has_at(l, scan::skip_spaces(l, gb_end), "GB")) return kNone;
    const std::size_t bw = spaces_end(l, scan::skip_spaces(l, gb_end) + 2);
    const std::size_t bw_end = bw == kNone ? kNone : bandwidth_end(l, bw);
    if (bw_end == kNone || !scan::has_at(l, scan::skip_spaces(l, bw_end), "GB/s")) return kNone;
    out.ms = l.substr(pos, ms_end - pos);
    out.gb = l.substr(gb, gb_end - gb);
    out.bw = l.substr(bw, bw_end - bw);
    return scan::skip_spaces(l, bw_end) + 4;
}

// The optional launcher columns at `pos`, then `tail` (" @ " or the line's end after spaces): the end of
// the launcher columns taken, or of none.
std::size_t with_launcher(std::string_view l, std::size_t pos, TimedColumns& out,
                          bool (*tail)(std::string_view, std::size_t)) {
    LauncherColumns launcher;
    const std::size_t end = launcher_end(l, pos, launcher);
    if (end != kNone && tail(l, end)) {
        out.launcher = launcher;
        return end;
    }
    return tail(l, pos) ? pos : kNone;
}
bool at_line_end(std::string_view l, std::size_t pos) { return scan::skip_spaces(l, pos) == l.size(); }
bool at_config(std::string_view l, std::size_t pos) {
    return scan::has_at(l, pos, " @ ") && l.find_first_of("\r\n", pos + 3) == std::string_view::npos;
}

// `^(.*?)\s*\b([A-Z]{3})\s+(\S+)\s+` + timed columns + launcher + `\s*$` (-k): the leftmost category
// that the rest of the line follows.
struct KernelLine {
    std::string_view category, name;
    TimedColumns timed;
};
std::optional<KernelLine> kernel_line(std::string_view l) {
    const std::size_t first_cr = l.find_first_of("\r\n");  // (.*?) takes neither
    for (std::size_t p = 0; p + 3 < l.size(); ++p) {
        if (!std::isupper(static_cast<unsigned char>(l[p])) || !std::isupper(static_cast<unsigned char>(l[p + 1])) ||
            !std::isupper(static_cast<unsigned char>(l[p + 2])) || (p > 0 && scan::is_word(l[p - 1])))
            continue;
        std::size_t before = p;
        while (before > 0 && scan::is_space(l[before - 1])) --before;
        if (first_cr < before) break;
        KernelLine k;
        const std::size_t name = spaces_end(l, p + 3);
        if (name == kNone) continue;
        const std::size_t name_end = scan::skip_while(l, name, [](char c) { return !scan::is_space(c); });
        const std::size_t cols = spaces_end(l, name_end);
        if (cols == kNone) continue;
        const std::size_t end = timed_end(l, cols, k.timed);
        if (end == kNone || with_launcher(l, end, k.timed, at_line_end) == kNone) continue;
        k.category = l.substr(p, 3);
        k.name = l.substr(name, name_end - name);
        return k;
    }
    return std::nullopt;
}

// `^(.*?)\s*\b([A-Z]{3}) (c[a-z0-9]{9})\s*$` (-k -c): a kernel's header; the key ends the line.
std::optional<std::pair<std::string_view, std::string_view>> kernel_header(std::string_view l) {
    const std::string_view t = scan::trim_end(l);
    if (t.size() < 14) return std::nullopt;
    const std::size_t key = t.size() - 10, p = key - 4;
    auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || scan::is_digit(c); };
    if (t[key] != 'c' || scan::skip_while(t, key + 1, lower_alnum) != t.size() || t[key - 1] != ' ')
        return std::nullopt;
    for (std::size_t i = p; i < key - 1; ++i)
        if (!std::isupper(static_cast<unsigned char>(t[i]))) return std::nullopt;
    if (p > 0 && scan::is_word(t[p - 1])) return std::nullopt;
    if (scan::trim_end(t.substr(0, p)).find_first_of("\r\n") != std::string_view::npos) return std::nullopt;
    return std::pair{t.substr(p, 3), t.substr(key)};
}

// `^\s+` + timed columns + launcher + ` @ (.*)$` (-k -c): one config of the kernel above.
std::optional<std::pair<TimedColumns, std::string_view>> config_line(std::string_view l) {
    const std::size_t cols = spaces_end(l, 0);
    TimedColumns c;
    const std::size_t end = cols == kNone ? kNone : timed_end(l, cols, c);
    const std::size_t at = end == kNone ? kNone : with_launcher(l, end, c, at_config);
    if (at == kNone) return std::nullopt;
    return std::pair{c, l.substr(at + 3)};
}

// `^(\d+\.\d+)ms\s+(\d+\.\d+)GB\s+(BW)GB/s\s*$`: a kernel module run on its own.
std::optional<TimedColumns> module_line(std::string_view l) {
    TimedColumns c;
    const std::size_t ms_end = decimal_end(l, 0);
    if (ms_end == kNone || !scan::has_at(l, ms_end, "ms")) return std::nullopt;
    const std::size_t gb = spaces_end(l, ms_end + 2);
    const std::size_t gb_end = gb == kNone ? kNone : decimal_end(l, gb);
    if (gb_end == kNone || !scan::has_at(l, gb_end, "GB")) return std::nullopt;
    const std::size_t bw = spaces_end(l, gb_end + 2);
    const std::size_t bw_end = bw == kNone ? kNone : bandwidth_end(l, bw);
    if (bw_end == kNone || !scan::has_at(l, bw_end, "GB/s") || !at_line_end(l, bw_end + 4)) return std::nullopt;
    c.ms = l.substr(0, ms_end);
    c.gb = l.substr(gb, gb_end - gb);
    c.bw = l.substr(bw, bw_end - bw);
    return c;
}

// `^\s*([0-9]+\.[0-9]+)\s*$`: print_performance's seconds per call.
std::optional<std::string_view> seconds_line(std::string_view l) {
    const std::size_t start = scan::skip_spaces(l, 0);
    const std::size_t end = decimal_end(l, start);
    if (end == kNone || !at_line_end(l, end)) return std::nullopt;
    return l.substr(start, end - start);
}

// `^Peak GPU memory usage ([0-9.]+) MB\s*$`
std::optional<std::string_view> peak_line(std::string_view l) {
    constexpr std::string_view head = "Peak GPU memory usage ";
    if (!scan::has_at(l, 0, head)) return std::nullopt;
    const std::size_t end = scan::skip_while(l, head.size(), [](char c) { return scan::is_digit(c) || c == '.'; });
    if (end == head.size() || !scan::has_at(l, end, " MB") || !at_line_end(l, end + 3)) return std::nullopt;
    return l.substr(head.size(), end - head.size());
}

void put_launcher(nlohmann::json& k, const std::optional<LauncherColumns>& launcher) {
    if (!launcher) return;
    auto regs = scan::decimal_value(launcher->regs), spills = scan::decimal_value(launcher->spills),
         shared = scan::decimal_value(launcher->shared);
    if (!regs || !spills || !shared) return;  // beyond int64: no launcher columns rather than an exception
    k["regs"] = *regs;
    k["spills"] = *spills;
    k["shared_bytes"] = *shared;
}

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
    std::istringstream in(text);
    std::string line;
    nlohmann::json j = nlohmann::json::object();
    nlohmann::json kernels = nlohmann::json::array();
    std::optional<double> seconds;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::optional<std::pair<TimedColumns, std::string_view>> config;
        std::optional<KernelLine> kernel;
        std::optional<std::pair<std::string_view, std::string_view>> header;
        std::optional<TimedColumns> module;
        std::optional<std::string_view> number;
        if ((config = config_line(line)) && !kernels.empty() && kernels.back().contains("configs")) {
            const TimedColumns& t = config->first;
            nlohmann::json c{{"ms", number_of(t.ms)}, {"gb", number_of(t.gb)}, {"config", config->second}};
            put_bandwidth(c, t.bw);
            put_launcher(c, t.launcher);
            auto& k = kernels.back();
            if (k["ms"].is_null() || c["ms"].get<double>() < k["ms"].get<double>()) k["ms"] = c["ms"];
            k["configs"].push_back(std::move(c));
        } else if ((kernel = kernel_line(line))) {
            nlohmann::json k{{"name", kernel->name},
                             {"key", kernel->name},
                             {"category", kernel->category},
                             {"ms", number_of(kernel->timed.ms)},
                             {"gb", number_of(kernel->timed.gb)}};
            put_bandwidth(k, kernel->timed.bw);
            put_launcher(k, kernel->timed.launcher);
            kernels.push_back(std::move(k));
        } else if ((header = kernel_header(line))) {
            kernels.push_back({{"name", header->second},
                               {"key", header->second},
                               {"category", header->first},
                               {"ms", nullptr},
                               {"configs", nlohmann::json::array()}});
        } else if ((module = module_line(line))) {
            nlohmann::json k{{"name", ""},
                             {"key", ""},
                             {"category", ""},
                             {"ms", number_of(module->ms)},
                             {"gb", number_of(module->gb)}};
            put_bandwidth(k, module->bw);
            kernels.push_back(std::move(k));
            j["form"] = "kernel_module";
        } else if (!seconds && (number = seconds_line(line))) {
            seconds = number_of(*number);
        } else if ((number = peak_line(line))) {
            j["peak_gpu_mb"] = number_of(*number);
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

// "triton_poi_fused_..." -> "POI": the category torch 2.11's -k prints as UNK
// (`^triton_(poi|red|per|tem|for|spl)_`).
static std::string category_of(const std::string& kernel_name) {
    if (kernel_name.rfind("triton_", 0) != 0 || !scan::has_at(kernel_name, 10, "_")) return {};
    std::string c = kernel_name.substr(7, 3);
    if (c != "poi" && c != "red" && c != "per" && c != "tem" && c != "for" && c != "spl") return {};
    for (auto& ch : c) ch = static_cast<char>(ch - 'a' + 'A');
    return c;
}

void name_kernels(nlohmann::json& parsed, const std::filesystem::path& cache_root) {
    if (!parsed.contains("kernels") || cache_root.empty()) return;
    for (auto& k : parsed["kernels"]) {
        std::string key = k.value("key", "");
        if (key.size() < 3 || !is_plain_file_name(key)) continue;  // a key from the output names a folder as it is
        // The kernel's module is <root>/<key[1:3]>/<key>.py (PyCodeCache); the line shows key[:10].
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(cache_root / key.substr(1, 2), ec)) {
            std::string f = e.path().filename().string();
            if (f.rfind(key, 0) != 0 || e.path().extension() != ".py") continue;
            std::string text = read_regular_file(e.path(), 64u << 20).value_or({});
            if (auto name = scan::quoted_after(text, "'kernel_name':")) {
                k["name"] = *name;
                k["module"] = e.path().string();
                std::string c = category_of(std::string(*name));
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
