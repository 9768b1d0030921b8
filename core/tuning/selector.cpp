#include "tuning/selector.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <map>

#include "cuda/driver.hpp"
#include "worker/executor.hpp"
#include "tuning/session_log.hpp"
#include "tuning/timing_cache.hpp"
#include "worker/tuning_pool.hpp"
#include "codecache/code_cache.hpp"
#include "codecache/compile_pool.hpp"
#include "cuda/nvcc.hpp"

namespace fs = std::filesystem;

namespace kiln::tuning {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

Result<std::vector<worker::Device>> session_devices(const TuningSpec& spec, const TuneOptions& o) {
    std::vector<worker::Device> devices = o.devices;
    if (devices.empty() && !spec.devices.empty()) { KILN_TRY(devices, worker::parse_devices(spec.devices)); }
    if (devices.empty()) devices = spec.lang == codecache::Lang::Cpp ? std::vector<worker::Device>{worker::Device{}} : worker::default_devices();
    for (const auto& d : devices) {
        if (spec.lang == codecache::Lang::Cpp && !d.is_cpu())
            return make_error(Errc::invalid_argument, "C++ kernels run on the CPU, not " + d.label(), spec.path.string(), "use --devices cpu");
        if (spec.lang == codecache::Lang::Cuda && d.is_cpu())
            return make_error(Errc::invalid_argument, "CUDA kernels need a GPU device, not the CPU", spec.path.string(),
                              "use --devices 0 (or 0,1,...) on a machine with NVIDIA GPUs");
    }
    return devices;
}

// "13.0" from nvcc's "release 13.0, V13.0.88": the toolkit version, like torch.version.cuda.
std::string cuda_toolkit_version() {
    std::string v = cuda::nvcc_version(cuda::find_nvcc());
    if (v.rfind("release ", 0) == 0) v = v.substr(8);
    return v.substr(0, v.find(','));
}

Result<inductor::SystemInfo> session_system(const TuningSpec& spec, const std::vector<worker::Device>& devices, const fs::path& root) {
    if (spec.lang == codecache::Lang::Cpp) return inductor::cpu_system();
    std::string name;
    for (const auto& d : devices) {
        KILN_TRY(auto facts, cuda::device_facts(*d.cuda));
        if (!name.empty() && facts.name != name)
            return make_error(Errc::invalid_argument, "devices of different models (" + name + ", " + facts.name + ")", {},
                              "timings are kept per GPU model: tune each model in its own session");
        name = facts.name;
    }
    return inductor::cuda_system(root, name, cuda_toolkit_version());
}


}  // namespace

Result<TuneReport> tune(const TuningSpec& spec, const TuneOptions& o) {
    auto progress = [&](const std::string& s) { if (o.progress) o.progress(s); };
    KILN_TRY(auto devices, session_devices(spec, o));
    KILN_TRY(auto system, session_system(spec, devices, o.cache_root));
    TimingCache cache(o.cache_root, system, o.global_cache_dir);
    KILN_TRY(auto choices, enumerate_choices(spec));

    TuneReport rep;
    rep.op = spec.op;
    rep.inputs_key = worker::inputs_key(spec.lang == codecache::Lang::Cuda ? "cuda" : "cpu", spec.inputs);
    rep.precision = spec.precision;
    rep.device = worker::devices_label(devices);
    rep.in_process = o.in_process;
    rep.cache_file = cache.local_path();
    TimingKey tkey{spec.op, rep.inputs_key, spec.precision};

    codecache::CodeCache cc(o.cache_root);
    std::vector<codecache::CompileRequest> creqs;
    for (size_t i = 0; i < choices.size(); ++i) {
        codecache::CompileRequest cr;
        cr.source = choices[i].source;
        cr.lang = spec.lang;
        cr.flags = spec.flags;
        KILN_TRY(auto key, cc.key_for(cr));
        ChoiceReport c;
        c.id = spec.op + "_" + std::to_string(i);
        c.key = spec.op + "-" + key;
        c.name = choices[i].name;
        c.params = choices[i].params;
        c.is_reference = choices[i].is_reference;
        rep.choices.push_back(std::move(c));
        creqs.push_back(std::move(cr));
    }

    rep.session_log = o.session_log.empty() ? SessionLog::default_path(o.cache_root, spec.op) : o.session_log;
    KILN_TRY(auto log, SessionLog::open(rep.session_log));
    log.write("session_start", {{"op", spec.op}, {"inputs_key", rep.inputs_key}, {"precision", spec.precision},
                                {"devices", rep.device}, {"choices", choices.size()}, {"spec", spec.path.string()},
                                {"in_process", o.in_process}, {"system_hash", system.hash}, {"cache_file", rep.cache_file.string()}});

    // Look up first: a full hit benchmarks nothing.
    KILN_TRY(auto cached, cache.lookup(tkey));
    std::vector<size_t> todo;
    for (size_t i = 0; i < rep.choices.size(); ++i) {
        auto& c = rep.choices[i];
        if (auto it = cached.find(c.key); it != cached.end()) {
            c.from_cache = true;
            c.ms = it->second;
            c.status = "cached";
        } else {
            todo.push_back(i);
        }
    }
    rep.cache_hit = todo.empty();
    if (!todo.empty() && rep.choices[0].from_cache) todo.insert(todo.begin(), 0);  // its output checks the others

    if (!todo.empty()) {
        // The runner: the device workers, or this process. It starts and warms up (CUDA context,
        // inputs on the device) while the choices precompile.
        // What every request of this op shares; choices add their library, the warm-up its flag.
        worker::BenchmarkRequest base;
        base.kind = spec.lang == codecache::Lang::Cuda ? worker::RequestKind::cuda : worker::RequestKind::cpp;
        base.kernel_name = spec.kernel_name;
        base.inputs = spec.inputs;
        base.output = spec.output;
        base.extra_args = spec.extra_args;
        base.seed = spec.seed;
        base.tolerance = spec.tolerance;
        base.timing = spec.timing;
        if (o.in_process && devices[0].cuda) base.device_ordinal = *devices[0].cuda;
        worker::BenchmarkRequest warm = base;
        warm.warmup_only = true;
        std::unique_ptr<worker::TuningProcessPool> pool;
        worker::Executor local;
        auto t_prepare = Clock::now();
        std::future<Status> ready;
        if (!o.in_process) {
            worker::PoolOptions po{devices, o.worker_path, o.timeouts, warm};
            pool = std::make_unique<worker::TuningProcessPool>(po);
            ready = std::async(std::launch::async, [&] {
                Status st = pool->start();
                rep.prepare_seconds = seconds_since(t_prepare);
                return st;
            });
        } else {
            ready = std::async(std::launch::async, [&] {
                worker::BenchmarkResult r = local.run(warm);
                rep.prepare_seconds = seconds_since(t_prepare);
                return r.ok() ? ok_status() : Status(make_error(Errc::external, "warm-up failed: " + r.reason));
            });
        }

        // Precompile in parallel.
        auto t_compile = Clock::now();
        std::map<size_t, fs::path> libraries;
        std::vector<std::pair<std::string, std::shared_ptr<codecache::Library>>> preloaded;
        {
            codecache::CompilePool pool(cc, o.compile_workers);
            std::vector<std::pair<size_t, std::shared_future<Result<codecache::CompileOutcome>>>> futures;
            for (size_t i : todo) futures.emplace_back(i, pool.compile_async(creqs[i]));
            for (auto& [i, f] : futures) {
                const auto& out = f.get();
                auto& c = rep.choices[i];
                if (out.ok()) {
                    c.compile_seconds = out->seconds;
                    c.library = out->output_path.string();
                    libraries[i] = out->output_path;
                } else {
                    c.from_cache = false;
                    c.ms = kInf;
                    c.status = "compile_error";
                    c.reason = out.error().str();
                }
            }
        }
        if (o.in_process)  // load while precompiling, like Inductor's precompile (CppCodeCache.load)
            for (auto& [i, path] : libraries) {
                auto lib = cc.load(path);
                if (lib.ok()) preloaded.emplace_back(path.string(), *lib);
            }
        rep.precompile_seconds = seconds_since(t_compile);
        char took[32];
        std::snprintf(took, sizeof took, "%.4f", rep.precompile_seconds);
        progress("precompiled " + std::to_string(todo.size()) + " choices in " + took + " s");

        auto make_request = [&](size_t i) {
            worker::BenchmarkRequest r = base;
            r.choice = rep.choices[i].key;
            r.library_path = libraries[i].string();
            return r;
        };

        KILN_CHECK(ready.get());
        for (auto& [path, lib] : preloaded) local.preload(path, lib);
        if (pool)
            for (const auto& w : pool->workers()) {
                rep.workers.push_back(w.pong);
                nlohmann::json ev{{"device", w.device.label()}, {"pid", w.pid}, {"pong", w.pong}, {"warmup_seconds", w.warmup_seconds}};
                if (!w.warmup_error.empty()) ev["warmup_error"] = w.warmup_error;
                log.write("worker_started", ev);
            }
        auto record = [&](size_t i, const worker::BenchmarkResult& r) {
            auto& c = rep.choices[i];
            c.from_cache = false;
            c.ms = r.ok() ? r.ms : kInf;
            c.status = r.status;
            c.reason = r.reason;
            c.device = r.device;
            c.stats = r.stats;
            c.overhead_seconds = std::max(0.0, r.wall_seconds - r.kernel_seconds - r.verify_seconds);
            c.verify_seconds = r.verify_seconds;
            c.details = r.details;
            if (r.worker_seconds > 0) c.details["phases_ms"]["ipc"] = (r.wall_seconds - r.worker_seconds) * 1000.0;
            log.write("measurement", {{"device", r.device}, {"choice", c.key}, {"id", c.id}, {"params", c.params},
                                      {"reference", c.is_reference}, {"compile_seconds", c.compile_seconds},
                                      {"stats", to_json(r.stats)}, {"ms", r.ok() ? nlohmann::json(r.ms) : nlohmann::json()},
                                      {"status", r.status}, {"reason", r.reason}, {"worker_pid", r.worker_pid},
                                      {"kernel_seconds", r.kernel_seconds}, {"verify_seconds", r.verify_seconds},
                                      {"wall_seconds", r.wall_seconds}, {"details", c.details}});
        };
        auto run = [&](std::vector<worker::BenchmarkRequest>& reqs, const std::vector<size_t>& idx) {
            if (pool) {
                std::mutex m;
                pool->benchmark(reqs, [&](size_t k, const worker::BenchmarkResult& r) {
                    std::lock_guard lk(m);
                    record(idx[k], r);
                });
                return;
            }
            for (size_t k = 0; k < reqs.size(); ++k) {
                auto t = Clock::now();
                worker::BenchmarkResult r = local.run(reqs[k]);
                r.wall_seconds = seconds_since(t);
                if (r.device.empty() || devices[0].cuda) r.device = devices[0].label();
                record(idx[k], r);
            }
        };

        auto t_bench = Clock::now();
        fs::path ref_out = rep.session_log.string() + ".reference.bin";
        if (!libraries.count(0))
            return make_error(Errc::external, "the reference choice does not compile: " + rep.choices[0].reason, spec.path.string());
        std::vector<worker::BenchmarkRequest> ref{make_request(0)};
        ref[0].save_output_path = ref_out.string();
        run(ref, {0});
        if (rep.choices[0].status != "ok") {
            std::error_code ec;
            fs::remove(ref_out, ec);
            return make_error(Errc::external, "the reference choice failed: " + rep.choices[0].reason, spec.path.string(),
                              "every other choice is checked against it; fix the reference parameters first");
        }
        std::vector<size_t> rest;
        for (size_t i : todo)
            if (i != 0 && libraries.count(i)) rest.push_back(i);
        // A time budget runs the sampled choices in rounds and stops starting rounds after it.
        size_t round = spec.strategy.seconds > 0 ? std::max<size_t>(devices.size() * 2, 1) : rest.size();
        for (size_t start = 0; start < rest.size(); start += round) {
            if (spec.strategy.seconds > 0 && seconds_since(t_bench) > spec.strategy.seconds) {
                for (size_t k = start; k < rest.size(); ++k) {
                    rep.choices[rest[k]].status = "skipped";
                    rep.choices[rest[k]].reason = "time budget spent";
                    rep.choices[rest[k]].ms = kInf;
                }
                break;
            }
            std::vector<size_t> idx(rest.begin() + static_cast<long>(start),
                                    rest.begin() + static_cast<long>(std::min(rest.size(), start + round)));
            std::vector<worker::BenchmarkRequest> reqs;
            for (size_t i : idx) {
                reqs.push_back(make_request(i));
                reqs.back().reference_output_path = ref_out.string();
            }
            run(reqs, idx);
        }
        rep.bench_seconds = seconds_since(t_bench);
        if (pool) {
            for (const auto& w : pool->workers()) log.write("worker_final", {{"device", w.device.label()}, {"pid", w.pid}, {"starts", w.starts}});
            pool->stop();
        }
        std::error_code ec;
        fs::remove(ref_out, ec);

        ChoiceTimings fresh;
        for (size_t i : todo)
            if (rep.choices[i].status != "skipped") fresh[rep.choices[i].key] = rep.choices[i].ms;
        KILN_CHECK(cache.update(tkey, fresh));
    } else {
        for (const auto& c : rep.choices)
            log.write("cache_hit", {{"choice", c.key}, {"id", c.id}, {"params", c.params},
                                    {"ms", std::isfinite(c.ms) ? nlohmann::json(c.ms) : nlohmann::json()}});
    }

    double best = kInf;
    for (const auto& c : rep.choices)
        if (c.ms < best) { best = c.ms; rep.best = c.key; }
    log.write("session_end", {{"best", rep.best}, {"best_ms", std::isfinite(best) ? nlohmann::json(best) : nlohmann::json()},
                              {"cache_hit", rep.cache_hit}, {"bench_seconds", rep.bench_seconds},
                              {"precompile_seconds", rep.precompile_seconds}, {"prepare_seconds", rep.prepare_seconds}});
    return rep;
}

}  // namespace kiln::tuning
