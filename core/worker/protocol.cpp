#include "worker/protocol.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kiln::worker {

const char* request_kind_name(RequestKind k) {
    switch (k) {
        case RequestKind::ping: return "ping";
        case RequestKind::test: return "test";
        case RequestKind::cpp: return "cpp";
        case RequestKind::cuda: return "cuda";
        case RequestKind::inductor_module: return "inductor_module";
        case RequestKind::triton: return "triton";
        case RequestKind::gemm: return "gemm";
        case RequestKind::shutdown: return "shutdown";
    }
    return "?";
}

// numpy's default quantile (linear interpolation), like torch.quantile in do_bench, by selection:
// 10^4 samples come back per choice, and a full sort of them was a visible part of the overhead.
// `s` is partially reordered; quantiles must be asked in increasing order.
static double quantile(std::vector<double>& s, double q, std::size_t& from) {
    double pos = q * static_cast<double>(s.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    std::nth_element(s.begin() + static_cast<std::ptrdiff_t>(from), s.begin() + static_cast<std::ptrdiff_t>(lo),
                     s.end());
    double low = s[lo];
    double high = lo + 1 < s.size() ? *std::min_element(s.begin() + static_cast<std::ptrdiff_t>(lo) + 1, s.end()) : low;
    from = lo;
    return low + (high - low) * (pos - static_cast<double>(lo));
}

TimingStats summarize(std::vector<double> s) {
    TimingStats t;
    if (s.empty()) return t;
    t.count = static_cast<int>(s.size());
    auto [mn, mx] = std::minmax_element(s.begin(), s.end());
    t.min = *mn;
    t.max = *mx;
    t.mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
    std::size_t from = 0;
    t.p20 = quantile(s, 0.2, from);
    t.median = quantile(s, 0.5, from);
    t.p80 = quantile(s, 0.8, from);
    return t;
}

const char* bench_status_name(BenchStatus s) {
    switch (s) {
        case BenchStatus::ok: return "ok";
        case BenchStatus::error: return "error";
        case BenchStatus::mismatch: return "mismatch";
        case BenchStatus::timeout: return "timeout";
        case BenchStatus::crash: return "crash";
    }
    return "error";
}

BenchmarkResult BenchmarkResult::failure(BenchStatus status, std::string reason) {
    BenchmarkResult r;
    r.status = status;
    r.reason = std::move(reason);
    return r;
}

nlohmann::json to_json(const TimingStats& s) {
    return {{"min", s.min}, {"p20", s.p20},   {"median", s.median}, {"p80", s.p80},
            {"max", s.max}, {"mean", s.mean}, {"count", s.count}};
}

nlohmann::json to_json(const TimingOptions& t) {
    return {{"warmup_ms", t.warmup_ms}, {"rep_ms", t.rep_ms},     {"min_reps", t.min_reps},
            {"max_reps", t.max_reps},   {"flush_l2", t.flush_l2}, {"statistic", statistic_name(t.statistic)}};
}

const char* statistic_name(Statistic s) { return s == Statistic::torch_min ? "torch-min" : "median"; }

std::optional<Statistic> statistic_from_name(const std::string& name) {
    if (name == "torch-min") return Statistic::torch_min;
    if (name == "median") return Statistic::median;
    return std::nullopt;
}

TimingOptions timing_options_from_json(const nlohmann::json& j, TimingOptions t) {
    t.warmup_ms = j.value("warmup_ms", t.warmup_ms);
    t.rep_ms = j.value("rep_ms", t.rep_ms);
    t.min_reps = j.value("min_reps", t.min_reps);
    t.max_reps = j.value("max_reps", t.max_reps);
    t.flush_l2 = j.value("flush_l2", t.flush_l2);
    if (j.contains("statistic") && j["statistic"].is_string())
        t.statistic = statistic_from_name(j["statistic"].get<std::string>()).value_or(t.statistic);
    return t;
}

TimingStats timing_stats_from_json(const nlohmann::json& j) {
    TimingStats s;
    s.min = j.value("min", 0.0);
    s.p20 = j.value("p20", 0.0);
    s.median = j.value("median", 0.0);
    s.p80 = j.value("p80", 0.0);
    s.max = j.value("max", 0.0);
    s.mean = j.value("mean", 0.0);
    s.count = j.value("count", 0);
    return s;
}

nlohmann::json to_json(const BenchmarkRequest& r) {
    nlohmann::json j{{"kind", request_kind_name(r.kind)}, {"choice", r.choice}};
    switch (r.kind) {
        case RequestKind::test:
            j["mode"] = r.test_mode;
            j["value"] = r.test_value;
            j["sleep_ms"] = r.test_sleep_ms;
            break;
        case RequestKind::cpp:
        case RequestKind::cuda:
        case RequestKind::triton:
        case RequestKind::gemm: {
            j["library"] = r.library_path;
            j["kernel"] = r.kernel_name;
            auto& in = j["inputs"] = nlohmann::json::array();
            for (const auto& t : r.inputs) in.push_back(to_json(t));
            j["output"] = to_json(r.output);
            j["extra_args"] = r.extra_args;
            j["seed"] = r.seed;
            j["device_ordinal"] = r.device_ordinal;
            j["save_output"] = r.save_output_path;
            j["reference_output"] = r.reference_output_path;
            j["rtol"] = r.tolerance.rtol;
            j["atol"] = r.tolerance.atol;
            j["timing"] = to_json(r.timing);
            if (!r.prefetch_libraries.empty()) j["prefetch"] = r.prefetch_libraries;
            if (!r.prefetch_kernels.empty()) {
                auto& pk = j["prefetch_kernels"] = nlohmann::json::array();
                for (const auto& b : r.prefetch_kernels) pk.push_back(to_json(b));
            }
            if (r.warmup_only) j["warmup_only"] = true;
            if (r.kind == RequestKind::triton) j["triton"] = to_json(r.triton);
            if (r.kind == RequestKind::gemm) j["gemm"] = cuda::to_json(r.gemm);
            if (r.reference_gemm) j["reference_gemm"] = cuda::to_json(*r.reference_gemm);
            break;
        }
        case RequestKind::inductor_module:
            j["module"] = r.module_path;
            j["python"] = r.python;
            j["cache_root"] = r.cache_root;
            j["per_kernel"] = r.per_kernel;
            j["timeout_s"] = r.module_timeout_s;
            break;
        default: break;
    }
    return j;
}

Result<BenchmarkRequest> request_from_json(const nlohmann::json& j) {
    BenchmarkRequest r;
    try {
        std::string kind = j.at("kind").get<std::string>();
        static const std::pair<const char*, RequestKind> kinds[] = {{"ping", RequestKind::ping},
                                                                    {"test", RequestKind::test},
                                                                    {"cpp", RequestKind::cpp},
                                                                    {"cuda", RequestKind::cuda},
                                                                    {"inductor_module", RequestKind::inductor_module},
                                                                    {"triton", RequestKind::triton},
                                                                    {"gemm", RequestKind::gemm},
                                                                    {"shutdown", RequestKind::shutdown}};
        auto it = std::find_if(std::begin(kinds), std::end(kinds), [&](auto& p) { return kind == p.first; });
        if (it == std::end(kinds)) return make_error(Errc::invalid_argument, "invalid request kind '" + kind + "'");
        r.kind = it->second;
        r.choice = j.value("choice", "");
        r.test_mode = j.value("mode", "");
        r.test_value = j.value("value", 0.0);
        r.test_sleep_ms = j.value("sleep_ms", 0.0);
        r.library_path = j.value("library", "");
        r.kernel_name = j.value("kernel", "");
        if (j.contains("inputs"))
            for (const auto& t : j["inputs"]) {
                KILN_TRY(auto meta, tensor_from_json(t, "request input"));
                r.inputs.push_back(std::move(meta));
            }
        if (j.contains("output")) {
            KILN_TRY(r.output, tensor_from_json(j["output"], "request output"));
        }
        if (j.contains("extra_args")) r.extra_args = j["extra_args"].get<std::vector<std::int64_t>>();
        r.seed = j.value("seed", std::uint64_t{0});
        r.device_ordinal = j.value("device_ordinal", 0);
        r.save_output_path = j.value("save_output", "");
        r.reference_output_path = j.value("reference_output", "");
        r.tolerance.rtol = j.value("rtol", r.tolerance.rtol);
        r.tolerance.atol = j.value("atol", r.tolerance.atol);
        if (j.contains("timing")) r.timing = timing_options_from_json(j["timing"], r.timing);
        r.warmup_only = j.value("warmup_only", false);
        if (j.contains("prefetch")) r.prefetch_libraries = j["prefetch"].get<std::vector<std::string>>();
        if (j.contains("prefetch_kernels"))
            for (const auto& b : j["prefetch_kernels"]) r.prefetch_kernels.push_back(triton_binary_from_json(b));
        if (j.contains("triton")) r.triton = triton_launch_from_json(j["triton"]);
        if (j.contains("gemm")) r.gemm = cuda::gemm_call_from_json(j["gemm"]);
        if (j.contains("reference_gemm")) r.reference_gemm = cuda::gemm_call_from_json(j["reference_gemm"]);
        r.module_path = j.value("module", "");
        r.python = j.value("python", "");
        r.cache_root = j.value("cache_root", "");
        r.per_kernel = j.value("per_kernel", false);
        r.module_timeout_s = j.value("timeout_s", r.module_timeout_s);
    } catch (const nlohmann::json::exception& e) {
        return make_error(Errc::parse, std::string("bad request: ") + e.what());
    }
    return r;
}

nlohmann::json to_json(const BenchmarkResult& r) {
    return {{"status", r.status},
            {"ms", r.ms},
            {"stats", to_json(r.stats)},
            {"reason", r.reason},
            {"kernel_seconds", r.kernel_seconds},
            {"worker_seconds", r.worker_seconds},
            {"verify_seconds", r.verify_seconds},
            {"details", r.details},
            {"worker_pid", r.worker_pid},
            {"device", r.device}};
}

BenchmarkResult result_from_json(const nlohmann::json& j) {
    BenchmarkResult r;
    try {
        r.status = j.value("status", BenchStatus::error);
        r.ms = j.value("ms", r.ms);
        if (j.contains("stats")) r.stats = timing_stats_from_json(j["stats"]);
        r.reason = j.value("reason", "");
        r.kernel_seconds = j.value("kernel_seconds", 0.0);
        r.worker_seconds = j.value("worker_seconds", 0.0);
        r.verify_seconds = j.value("verify_seconds", 0.0);
        if (j.contains("details")) r.details = j["details"];
        r.worker_pid = j.value("worker_pid", 0);
        r.device = j.value("device", "");
    } catch (const nlohmann::json::exception& e) {
        return BenchmarkResult::failure(BenchStatus::error, std::string("bad result message: ") + e.what());
    }
    if (!r.ok()) r.ms = std::numeric_limits<double>::infinity();
    return r;
}

}  // namespace kiln::worker
