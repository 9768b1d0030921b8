#include "retune/run.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "cuda/driver.hpp"
#include "retune/inventory.hpp"
#include "retune/problem.hpp"
#include "retune/recorded_compare.hpp"
#include "retune/run_jobs.hpp"
#include "retune/triton_index.hpp"
#include "tuning/session_log.hpp"
#include "util/path_component.hpp"
#include "util/utc_time.hpp"
#include "worker/devices.hpp"
#include "worker/tuning_pool.hpp"

namespace fs = std::filesystem;

namespace kiln::retune {

using worker::BenchmarkRequest;
using worker::BenchmarkResult;
using worker::BenchStatus;

worker::Tolerance tolerance_for(worker::DType dtype, std::int64_t K, bool tf32, bool bias) {
    worker::Tolerance t;
    switch (dtype) {
        case worker::DType::f16: t = {1e-3, 1e-5}; break;
        case worker::DType::bf16: t = {1.6e-2, 1e-5}; break;
        case worker::DType::f64: t = {1e-7, 1e-7}; break;
        default: t = {1.3e-6, 1e-5}; break;
    }
    // Two float32 accumulations of K products in different orders differ by up to ~K ulps of the
    // partial sums (inputs are in [-1, 1]); TF32 rounds each input to 10 mantissa bits.
    double accumulation = static_cast<double>(std::max<std::int64_t>(K, 1)) * std::ldexp(1.0, -24) * 2;
    if (tf32) accumulation = std::sqrt(static_cast<double>(std::max<std::int64_t>(K, 1))) * std::ldexp(1.0, -10) * 2;
    t.atol = std::max(t.atol, accumulation);
    if (tf32) t.rtol = std::max(t.rtol, std::ldexp(1.0, -10));
    if (bias && (dtype == worker::DType::f16 || dtype == worker::DType::bf16)) {
        double half_ulp = std::ldexp(1.0, dtype == worker::DType::bf16 ? -8 : -11);  // relative, at most
        double product = 6 * 0.37 * std::sqrt(static_cast<double>(std::max<std::int64_t>(K, 1)));
        t.atol = std::max(t.atol, half_ulp * product);
    }
    return t;
}

const char* measured_status(BenchStatus s) {
    switch (s) {
        case BenchStatus::ok: return "ok";
        case BenchStatus::error: return "failed";
        case BenchStatus::mismatch: return "wrong";
        case BenchStatus::timeout: return "timeout";
        case BenchStatus::crash: return "crashed";
    }
    return "failed";
}

Result<BenchmarkRequest> request_for(const RetuneOp& op, const RetuneChoice& c, const RunOptions& o) {
    KILN_TRY(auto p, make_problem(op.op, op.inputs));
    BenchmarkRequest r;
    r.choice = c.name;
    r.group = op.op + " " + op.inputs;  // a worker stays on one op: its inputs and reference once
    r.inputs = p.inputs;
    r.output = p.output;
    r.seed = o.seed;
    r.timing = o.timing;
    bool tf32 = p.output.dtype == worker::DType::f32 && op.precision != "highest";
    r.tolerance = tolerance_for(p.output.dtype, p.K, tf32, p.bias_index >= 0);
    if (c.kind == ChoiceKind::triton && c.triton && c.grid) {
        r.kind = worker::RequestKind::triton;
        r.triton.binary = *c.triton;
        r.triton.grid = *c.grid;
        r.triton.args = c.args;
    } else if (c.kind == ChoiceKind::extern_op && c.gemm) {
        r.kind = worker::RequestKind::gemm;
        r.gemm = *c.gemm;
    } else {
        return make_error(Errc::unsupported, c.why.empty() ? "not runnable" : c.why, c.name);
    }
    return r;
}

namespace {

int device_index(const std::string& label) {  // "cuda:3" -> 3, "cpu" -> -1
    if (label.rfind("cuda:", 0) != 0) return -1;
    try {
        return std::stoi(label.substr(5));
    } catch (const std::exception&) {
        return -1;
    }
}

Measurement measurement_of(const BenchmarkResult& r) {
    Measurement m;
    m.device = device_index(r.device);
    m.status = measured_status(r.status);
    if (r.ok() && std::isfinite(r.ms)) m.ms = r.ms;
    m.spread_ms = (r.stats.p80 - r.stats.p20) / 2;
    m.min_ms = r.stats.min;
    m.median_ms = r.stats.median;
    m.torch_inf = !r.ok() && r.details.is_object() && r.details.value("kernel_failed", false);
    m.runs = r.stats.count;
    m.why = r.ok() ? std::string() : r.reason;
    m.kernel_seconds = r.kernel_seconds;
    m.wall_seconds = r.wall_seconds;
    m.worker_seconds = r.worker_seconds;
    if (r.details.is_object() && r.details.contains("phases_ms")) m.phases_ms = r.details["phases_ms"];
    return m;
}

std::string sm_arch(int cc_major, int cc_minor) { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }

// "cpu" is the tests' device (their requests are rewritten): the cache's cubins and cuBLAS calls
// cannot run there, so a user's --devices cpu would only fail every choice.
Status refuse_cpu(const std::string& spec, bool rewritten) {
    auto parsed = worker::parse_devices(spec);
    if (rewritten || !parsed.ok() ||
        std::none_of(parsed->begin(), parsed->end(), [](const worker::Device& d) { return d.is_cpu(); }))
        return ok_status();
    Error e = no_gpu_error("");
    e.code = Errc::unsupported;
    e.message = "re-tuning runs the cache's own GPU kernels (cubins, cuBLAS): the CPU cannot run them";
    e.context = "--devices " + spec;
    return e;
}

Result<std::vector<DeviceDesc>> resolve_devices(const std::string& spec, std::vector<worker::Device>& devices) {
    std::vector<DeviceDesc> out;
    KILN_TRY(devices, spec == "all" ? Result<std::vector<worker::Device>>(std::vector<worker::Device>{})
                                    : worker::parse_devices(spec));
    if (std::any_of(devices.begin(), devices.end(), [](const worker::Device& d) { return !d.is_cpu(); }) ||
        spec == "all") {
        // The driver's own words say why there is no GPU (no libcuda, cuInit failed, none visible).
        auto n = cuda::device_count();
        if (!n) return no_gpu_error(n.error().message);
        if (*n == 0) return no_gpu_error("the CUDA driver sees no GPU");
        if (spec == "all")
            for (int i = 0; i < *n; ++i) devices.push_back({i});
    }
    for (const auto& d : devices) {
        if (d.is_cpu()) {
            out.push_back({-1, "cpu", ""});
            continue;
        }
        KILN_TRY(auto f, cuda::device_facts(*d.cuda));
        out.push_back({*d.cuda, f.name, sm_arch(f.cc_major, f.cc_minor)});
    }
    return out;
}

// A GPU worker's Pong names its one device (executor's describe_process).
DeviceDesc describe_worker(const worker::WorkerInfo& w) {
    const auto& p = w.pong;
    std::string arch =
        p.contains("cc_major") && p.contains("cc_minor") ? sm_arch(p.value("cc_major", 0), p.value("cc_minor", 0)) : "";
    return {w.device.cuda.value_or(-1), p.value("device_name", std::string()), arch};
}

// What every worker does before the first choice: its CUDA context, stream, L2 flush buffer and
// Kiln's device kernels; nothing op-specific, so it can run before the inventory is read.
BenchmarkRequest device_warmup() {
    BenchmarkRequest w;
    w.kind = worker::RequestKind::gemm;
    w.choice = "warm-up";
    w.output.dtype = worker::DType::f32;
    w.output.sizes = {1};
    w.warmup_only = true;
    return w;
}

// Each GPU worker starts when the one before it is ready: alone, a worker is ready in ~0.4 s, so
// the first takes choices from then on instead of all four at ~1.3-1.7 s (bench/RESULTS.md, fifth
// round). KILN_RETUNE_START (together, pong, ready) picks another order for benchmarks.
worker::PoolOptions::Start start_order() {
    const char* env = std::getenv("KILN_RETUNE_START");
    std::string how = env ? env : "";
    if (how == "together") return worker::PoolOptions::Start::together;
    if (how == "pong") return worker::PoolOptions::Start::after_previous_pong;
    return worker::PoolOptions::Start::after_previous_ready;
}

// The inventory picks each choice's binary for one architecture: the first worker's. A worker on
// a GPU of another kind takes no choice (its cubins would not load there).
std::function<Status(const nlohmann::json&)> same_architecture() {
    struct First {
        std::mutex mutex;
        std::string arch;
    };
    auto first = std::make_shared<First>();
    return [first](const nlohmann::json& pong) -> Status {
        if (!pong.contains("cc_major") || !pong.contains("cc_minor")) return ok_status();
        std::string arch = sm_arch(pong.value("cc_major", 0), pong.value("cc_minor", 0));
        std::lock_guard lk(first->mutex);
        if (first->arch.empty()) first->arch = arch;
        if (arch == first->arch) return ok_status();
        return make_error(Errc::unsupported,
                          "GPU " + pong.value("device_name", std::string("?")) + " is " + arch +
                              ", the run's first is " + first->arch,
                          {}, "re-tune each kind of GPU in its own run (--devices)");
    };
}

int arch_number(const std::string& arch) {  // "sm_90" -> 90
    return arch.size() > 3 ? std::atoi(arch.c_str() + 3) : 0;
}

// `root_fd`: the opened root, which each worker inherits and reads the Triton binaries beneath.
worker::PoolOptions retune_pool_options(std::vector<worker::Device> devices, const RunOptions& o, int root_fd) {
    worker::PoolOptions po;
    po.devices = std::move(devices);
    po.worker_path = o.worker_path;
    po.cache_root_fd = root_fd;
    po.timeouts.result = std::chrono::milliseconds(static_cast<long long>(o.timeout_s * 1000));
    if (std::none_of(po.devices.begin(), po.devices.end(), [](const worker::Device& d) { return d.is_cpu(); })) {
        po.warmup = device_warmup();
        po.preload_cublas = true;
        po.start = start_order();
        po.accept = same_architecture();
    }
    return po;
}

std::unique_ptr<worker::TuningProcessPool> make_retune_pool(std::vector<worker::Device> devices, const RunOptions& o,
                                                            int root_fd) {
    return std::make_unique<worker::TuningProcessPool>(retune_pool_options(std::move(devices), o, root_fd));
}

// The devices the workers are started for before the driver is asked: with "all" the GPUs the
// driver lists (CUDA may count differently: then the pool is started again).
std::vector<worker::Device> planned_devices(const std::string& spec) {
    std::vector<worker::Device> planned;
    if (spec == "all") {
        if (auto n = worker::driver_gpu_count())
            for (int i = 0; i < *n; ++i) planned.push_back({i});
    } else if (auto parsed = worker::parse_devices(spec); parsed.ok()) {
        planned = *parsed;
    }
    return planned;
}

struct ResultSpan {  // a device's first and last result, seconds since the run started
    double first = 0, last = 0;
    int results = 0;
};

// The report's timeline of each worker: when it was spawned, up and ready, its warm-up, its results.
nlohmann::json workers_timeline(const worker::TuningProcessPool& pool, const std::map<std::string, ResultSpan>& busy,
                                std::chrono::steady_clock::time_point started) {
    auto since_start = [&](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(t - started).count();
    };
    nlohmann::json workers = nlohmann::json::array();
    for (const auto& w : pool.workers()) {
        nlohmann::json j{{"device", w.device.label()}, {"pid", w.pid}, {"starts", w.starts}};
        if (w.spawned.time_since_epoch().count() != 0) {
            j["spawned_s"] = since_start(w.spawned);
            j["up_s"] = since_start(w.up);
            j["ready_s"] = since_start(w.ready);
        }
        if (w.pong.is_object() && w.pong.contains("cuda_init_ms")) j["cuda_init_ms"] = w.pong["cuda_init_ms"];
        if (w.warmup_details.is_object() && w.warmup_details.contains("phases_ms"))
            j["warmup_ms"] = w.warmup_details["phases_ms"];
        if (!w.warmup_error.empty()) j["warmup_error"] = w.warmup_error;
        if (auto b = busy.find(w.device.label()); b != busy.end())
            j["results"] = {{"first_s", b->second.first}, {"last_s", b->second.last}, {"count", b->second.results}};
        workers.push_back(std::move(j));
    }
    return workers;
}

// The last step: measurements in device order, the session logs listed and ended with their best.
void finish_ops(RetuneReport& report, const std::vector<std::unique_ptr<tuning::SessionLog>>& logs,
                const std::vector<int>& reference_of, bool cancelled) {
    for (std::size_t i = 0; i < report.ops.size(); ++i) {
        auto& op = report.ops[i];
        if (logs[i]) report.session_logs.push_back(logs[i]->path().string());
        // Sort each choice's measurements by device for stable output.
        for (auto& c : op.choices)
            std::sort(c.measured.begin(), c.measured.end(),
                      [](const Measurement& a, const Measurement& b) { return a.device < b.device; });
        if (reference_of[i] < 0)
            report.warnings.push_back(op.op + " " + op.inputs +
                                      ": no runnable extern choice, so outputs were not verified");
        if (const auto& log = logs[i]) {
            std::string best;
            double best_ms = INFINITY;
            for (const auto& c : op.choices)
                for (const auto& m : c.measured)
                    if (m.ms && *m.ms < best_ms) best_ms = *m.ms, best = c.name;
            log->write("session_end", {{"best", best},
                                       {"best_ms", std::isfinite(best_ms) ? nlohmann::json(best_ms) : nlohmann::json()},
                                       {"cancelled", cancelled}});
        }
    }
}

}  // namespace

Error no_gpu_error(const std::string& why) {
    return make_error(Errc::unavailable, "this machine has no CUDA GPU to re-tune on" + (why.empty() ? "" : ": " + why),
                      {},
                      "on a machine without a GPU: `kiln-cli retune ROOT --list` shows what would run; on a GPU "
                      "machine run `kiln-cli retune ROOT --json > retune.json`, then here `kiln-cli handback ROOT "
                      "--from retune.json --write` (or --pin FILE, --publish URL)");
}

std::optional<Error> nothing_measured(const RetuneReport& r) {
    int choices = 0, runnable = 0;
    std::string why_not;
    for (const auto& op : r.ops)
        for (const auto& c : op.choices) {
            if (!c.measured.empty()) return std::nullopt;
            ++choices;
            if (c.runnable) ++runnable;
            else if (why_not.empty()) why_not = display_name(c) + ": " + c.why;
        }
    if (r.devices.empty())
        return make_error(Errc::unavailable,
                          "nothing was measured: this report is an inventory (`kiln-cli retune --list`), run on no GPU",
                          r.root, no_gpu_error("").hint);
    if (r.ops.empty())
        return make_error(Errc::not_found,
                          "nothing was measured: no autotuned op (none in the cache's timing files, "
                          "or none matched --op)",
                          r.root);
    if (runnable == 0)
        return make_error(Errc::unsupported,
                          "nothing was measured: none of the " + std::to_string(choices) + " choices can run here",
                          r.root, "e.g. " + why_not);
    return make_error(Errc::unavailable,
                      "nothing was measured: the run on " + std::to_string(r.devices.size()) +
                          " GPU(s) ended before its first measurement",
                      r.root);
}

fs::path retune_session_log_path(const fs::path& root, const std::string& op, std::size_t index,
                                 const std::string& stamp, long pid) {
    return root / "kiln" / "autotune" /
           ("retune-" + file_name_part(op) + "-" + std::to_string(index) + "-" + stamp + "-" + std::to_string(pid) +
            ".jsonl");
}

Result<RetuneReport> run_retune(const inductor::OpenedRoot& root, const RunOptions& o) {
    KILN_CHECK(refuse_cpu(o.devices, static_cast<bool>(o.rewrite)));
    auto started = std::chrono::steady_clock::now();
    auto since_start = [&](std::chrono::steady_clock::time_point t) {
        return std::chrono::duration<double>(t - started).count();
    };
    nlohmann::json timeline = nlohmann::json::object();
    auto mark = [&](const char* what) { timeline[what] = since_start(std::chrono::steady_clock::now()); };
    auto make_pool = [&o, &root](std::vector<worker::Device> devs) {
        return make_retune_pool(std::move(devs), o, root.fd);
    };
    // The workers start first (processes, CUDA contexts, cuBLAS, Kiln's device kernels: about a
    // second each) and take choices as soon as they are up; meanwhile this process reads the
    // Triton cache and asks the driver for the devices' facts (cuInit: most of a second on a
    // 4-GPU host). With --devices all the workers are started for the GPUs the driver lists, and
    // started again in the rare case that CUDA counts differently.
    std::unique_ptr<worker::TuningProcessPool> pool;
    const std::vector<worker::Device> planned = planned_devices(o.devices);
    if (!o.each_device && !planned.empty()) {
        pool = make_pool(planned);
        pool->start_async();
        mark("pool_started");
    }
    auto index = std::async(std::launch::async, [root] { return index_triton_cache(root); });
    // The devices' names and architectures come from the workers' Pongs: a cuInit of this process
    // would contend with the workers' own (five processes initialising the driver at once each
    // took 1.0-1.4 s on a 4-GPU host where one alone takes 0.5 s). Without a running pool, or when
    // a worker cannot see its GPU, this process asks the driver itself.
    std::vector<worker::Device> devices;
    std::vector<DeviceDesc> descs;
    // The first worker's Pong is enough (the others may not have started yet, see start_order());
    // the others' facts are read when the choices are done, and a GPU of another architecture is
    // refused at its Pong (same_architecture()).
    const bool from_workers =
        pool && std::none_of(planned.begin(), planned.end(), [](const worker::Device& d) { return d.is_cpu(); });
    if (from_workers && pool->up(0).ok()) {
        descs.push_back(describe_worker(pool->workers().front()));
        if (descs.front().arch.empty()) descs.clear();
    }
    if (!descs.empty()) {
        devices = planned;
        timeline["devices_from"] = "workers";
    } else {
        KILN_TRY(descs, resolve_devices(o.devices, devices));
        timeline["devices_from"] = "driver";
    }
    mark("devices");
    std::optional<int> arch = o.arch;
    if (!arch && !descs.empty() && descs.front().index >= 0) {
        arch = arch_number(descs.front().arch);
        for (const auto& d : descs)
            if (arch_number(d.arch) != *arch)
                return make_error(Errc::unsupported, "the chosen GPUs are of different architectures", o.devices,
                                  "re-tune each kind of GPU in its own run (--devices)");
    }
    auto same_devices = [](const std::vector<worker::Device>& a, const std::vector<worker::Device>& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                          [](const worker::Device& x, const worker::Device& y) { return x.cuda == y.cuda; });
    };
    if (!o.each_device && (!pool || !same_devices(planned, devices))) {
        if (pool) timeline["pool_restarted"] = true;  // the driver's list was not CUDA's count
        pool = make_pool(devices);
        pool->start_async();
        mark("pool_started");
    }
    TritonIndex triton = index.get();
    mark("triton_index");
    KILN_TRY(auto report, inventory(root, {arch, o.op_filter, &triton}));
    mark("inventory");
    if (o.keep_op) std::erase_if(report.ops, [&](const RetuneOp& op) { return !o.keep_op(op); });
    report.devices = descs;
    report.statistic = worker::statistic_name(o.timing.statistic);
    std::mutex phase_mutex;
    auto phase_mark = started;
    auto phase = [&](const std::string& name) {  // adds the time since the last mark to `name`
        std::lock_guard lk(phase_mutex);
        auto now = std::chrono::steady_clock::now();
        report.phase_seconds[name] += std::chrono::duration<double>(now - phase_mark).count();
        phase_mark = now;
    };
    phase("inventory");

    RetuneJobs work = plan_jobs(report, o);
    const std::vector<RetuneJob>& jobs = work.jobs;
    const std::vector<int>& ref_of = work.reference_of;  // (no structured binding: lambdas capture these)

    // An op's session log is made when its first result comes: a run that measures nothing (no
    // worker started, cancelled before the first choice) leaves the cache as it was.
    std::vector<std::unique_ptr<tuning::SessionLog>> logs(report.ops.size());
    const std::string stamp = utc_now(UtcFormat::compact);
    std::string label;
    for (const auto& d : devices) label += (label.empty() ? "" : ",") + d.label();
    bool log_failed = false;
    auto log_of = [&](std::size_t i) -> tuning::SessionLog* {  // under record_mutex
        if (logs[i] || !o.session_logs || log_failed) return logs[i].get();
        const auto& op = report.ops[i];
        // Beneath the opened root: its path may name another directory by now (issue 44).
        auto log = tuning::SessionLog::open(root, retune_session_log_path({}, op.op, i, stamp, ::getpid()).string());
        if (!log.ok()) {
            log_failed = true;
            report.warnings.push_back("no session log: " + log.error().str());
            return nullptr;
        }
        logs[i] = std::make_unique<tuning::SessionLog>(std::move(*log));
        logs[i]->write("session_start", {{"op", op.op},
                                         {"inputs_key", op.inputs},
                                         {"precision", op.precision},
                                         {"devices", label},
                                         {"choices", op.choices.size()},
                                         {"mode", "retune"},
                                         {"recorded_system_hash", op.recorded_for.system_hash},
                                         {"recorded_device", op.recorded_for.device}});
        return logs[i].get();
    };

    std::mutex record_mutex;
    std::map<std::string, ResultSpan> busy;  // per device: its first and last result
    auto record = [&](const RetuneJob& job, const BenchmarkResult& r) {
        std::lock_guard lk(record_mutex);
        auto& span = busy[r.device];
        span.last = since_start(std::chrono::steady_clock::now());
        if (span.results++ == 0) span.first = span.last;
        auto& op = report.ops[job.op];
        auto& c = op.choices[job.choice];
        Measurement m = measurement_of(r);
        c.measured.push_back(m);
        if (auto* log = log_of(job.op))
            log->write("measurement", {{"device", r.device},
                                       {"choice", c.name},
                                       {"params", c.config},
                                       {"reference", static_cast<int>(job.choice) == ref_of[job.op]},
                                       {"stats", worker::to_json(r.stats)},
                                       {"ms", m.ms ? nlohmann::json(*m.ms) : nlohmann::json()},
                                       {"status", r.ok() ? "ok" : measured_status(r.status)},
                                       {"reason", r.reason},
                                       {"kernel_seconds", r.kernel_seconds},
                                       {"wall_seconds", r.wall_seconds}});
        if (o.on_measured) o.on_measured(op, c, m);
    };

    // One pass of the jobs on one pool.
    auto run_on = [&](worker::TuningProcessPool& pool) {
        std::vector<BenchmarkRequest> reqs;
        for (const auto& j : jobs) reqs.push_back(j.request);
        if (o.cancel && o.cancel->load()) return;
        pool.benchmark(reqs, [&](std::size_t k, const BenchmarkResult& r) {
            if (o.cancel && o.cancel->load()) return;
            record(jobs[k], r);
        });
    };

    Status failed = ok_status();
    if (!o.each_device) {
        if (!jobs.empty()) run_on(*pool);
        phase("choices");
        // A worker that did not start took no choice; with none up every choice failed with why.
        if (Status st = pool->started(); !st.ok()) {
            bool any = false;
            for (const auto& op : report.ops)
                for (const auto& c : op.choices)
                    for (const auto& m : c.measured) any = any || m.status == "ok";
            if (!any) failed = st;
            else report.warnings.push_back("a worker did not start: " + st.error().str());
        }
        timeline["workers"] = workers_timeline(*pool, busy, started);
        if (timeline.value("devices_from", "") == "workers") {
            report.devices.clear();
            for (const auto& w : pool->workers()) report.devices.push_back(describe_worker(w));
        }
        // Every choice is answered: the workers exit while the report is finished and printed.
        if (o.wait_for_workers) pool.reset();
        else worker::TuningProcessPool::release(std::move(pool));
    } else if (!jobs.empty()) {
        std::vector<std::thread> threads;
        std::vector<Status> status(devices.size(), ok_status());
        for (std::size_t d = 0; d < devices.size(); ++d)
            threads.emplace_back([&, d] {
                auto one = make_pool({devices[d]});
                status[d] = one->start();
                if (status[d].ok()) run_on(*one);
                if (!o.wait_for_workers) worker::TuningProcessPool::release(std::move(one));
            });
        for (auto& t : threads) t.join();
        phase("choices");
        for (auto& s : status)
            if (!s.ok() && failed.ok()) failed = s;
    }
    mark("choices_done");
    if (!failed.ok()) return failed.error();
    phase("finish");

    finish_ops(report, logs, ref_of, o.cancel && o.cancel->load());
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    timeline["report"] = report.wall_seconds;
    report.timeline = std::move(timeline);
    return report;
}

}  // namespace kiln::retune
