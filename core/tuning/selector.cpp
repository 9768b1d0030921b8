#include "tuning/selector.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>

#include "codecache/code_cache.hpp"
#include "codecache/compile_pool.hpp"
#include "tuning/bench_runner.hpp"
#include "tuning/session_devices.hpp"
#include "tuning/session_log.hpp"
#include "tuning/timing_cache.hpp"

namespace fs = std::filesystem;

namespace kiln::tuning {
namespace {

using Clock = std::chrono::steady_clock;

nlohmann::json ms_or_null(double ms) { return std::isfinite(ms) ? nlohmann::json(ms) : nlohmann::json(); }

// One call of tune(), step by step: plan (devices, system, choices and their keys, the log),
// look the choices up in the timing cache, then for the rest precompile, benchmark the reference,
// benchmark the others against it, and persist; finally pick the best.
class Session {
public:
    Session(const TuningSpec& spec, const TuneOptions& o) : spec_(spec), o_(o), code_cache_(o.cache_root) {}

    Result<TuneReport> run() {
        KILN_CHECK(plan());
        KILN_TRY(auto cached, cache_->lookup(key_));
        std::vector<std::size_t> todo = apply_cached(cached);
        if (todo.empty()) log_cache_hits();
        else KILN_CHECK(benchmark(todo));
        finish();
        return std::move(rep_);
    }

private:
    Status plan();
    std::vector<std::size_t> apply_cached(const ChoiceTimings& cached);
    Status benchmark(const std::vector<std::size_t>& todo);
    void precompile(const std::vector<std::size_t>& todo, BenchRunner& runner);
    Status run_reference(BenchRunner& runner);
    void run_others(const std::vector<std::size_t>& todo, BenchRunner& runner, Clock::time_point started);
    void record(std::size_t i, const worker::BenchmarkResult& r);
    void save_partial(const std::string& why);
    void log_workers(const char* event, const BenchRunner& runner);
    void log_cache_hits();
    void finish();

    worker::BenchmarkRequest request_for(std::size_t i) const {
        worker::BenchmarkRequest r = base_;
        r.choice = rep_.choices[i].key;
        r.library_path = libraries_.at(i).string();
        return r;
    }
    fs::path reference_output() const { return rep_.session_log.string() + ".reference.bin"; }
    void progress(const std::string& line) const {
        if (o_.progress) o_.progress(line);
    }

    const TuningSpec& spec_;
    const TuneOptions& o_;
    codecache::CodeCache code_cache_;
    std::vector<worker::Device> devices_;
    std::optional<TimingCache> cache_;
    std::optional<SessionLog> log_;
    TimingKey key_;
    TuneReport rep_;
    std::vector<codecache::CompileRequest> compile_requests_;  // one per choice
    worker::BenchmarkRequest base_;                            // what every request of this op shares
    std::map<std::size_t, fs::path> libraries_;                // the choices that compiled
    std::mutex record_mutex_;                                  // record() against an in-process abort's save_partial()
    std::vector<std::size_t> measured_;                        // the choices record() has seen, in order
};

Status Session::plan() {
    KILN_TRY(devices_, session_devices(spec_, o_.devices));
    KILN_TRY(auto system, session_system(spec_, devices_, o_.cache_root));
    cache_.emplace(o_.cache_root, system, o_.global_cache_dir);
    KILN_TRY(auto candidates, enumerate_choices(spec_));
    rep_.op = spec_.op;
    rep_.inputs_key = worker::inputs_key(spec_.lang == codecache::Lang::Cuda ? "cuda" : "cpu", spec_.inputs);
    rep_.precision = spec_.precision;
    rep_.device = worker::devices_label(devices_);
    rep_.in_process = o_.in_process;
    rep_.cache_file = cache_->local_path();
    key_ = TimingKey{spec_.op, rep_.inputs_key, spec_.precision};
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        codecache::CompileRequest cr;
        cr.source = candidates[i].source;
        cr.lang = spec_.lang;
        cr.flags = spec_.flags;
        KILN_TRY(auto code_key, code_cache_.key_for(cr));
        ChoiceReport c;
        c.id = spec_.op + "_" + std::to_string(i);
        c.key = spec_.op + "-" + code_key;  // the same code is the same choice, found again
        c.name = candidates[i].name;
        c.params = candidates[i].params;
        c.is_reference = candidates[i].is_reference;
        rep_.choices.push_back(std::move(c));
        compile_requests_.push_back(std::move(cr));
    }
    rep_.session_log = o_.session_log.empty() ? SessionLog::default_path(o_.cache_root, spec_.op) : o_.session_log;
    KILN_TRY(auto log, SessionLog::open(rep_.session_log));
    log_.emplace(std::move(log));
    log_->write("session_start", {{"op", spec_.op},
                                  {"inputs_key", rep_.inputs_key},
                                  {"precision", spec_.precision},
                                  {"devices", rep_.device},
                                  {"choices", candidates.size()},
                                  {"spec", spec_.path.string()},
                                  {"in_process", o_.in_process},
                                  {"system_hash", system.hash},
                                  {"cache_file", rep_.cache_file.string()}});
    return ok_status();
}

// A full hit benchmarks nothing; otherwise the reference runs again too: its output checks the others.
std::vector<std::size_t> Session::apply_cached(const ChoiceTimings& cached) {
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < rep_.choices.size(); ++i) {
        auto& c = rep_.choices[i];
        if (auto it = cached.find(c.key); it != cached.end()) {
            c.from_cache = true;
            c.ms = it->second;
            c.status = ChoiceStatus::cached;
        } else {
            todo.push_back(i);
        }
    }
    rep_.cache_hit = todo.empty();
    if (!todo.empty() && rep_.choices[0].from_cache) todo.insert(todo.begin(), 0);
    return todo;
}

Status Session::benchmark(const std::vector<std::size_t>& todo) {
    base_.kind = spec_.lang == codecache::Lang::Cuda ? worker::RequestKind::cuda : worker::RequestKind::cpp;
    base_.kernel_name = spec_.kernel_name;
    base_.inputs = spec_.inputs;
    base_.output = spec_.output;
    base_.extra_args = spec_.extra_args;
    base_.seed = spec_.seed;
    base_.tolerance = spec_.tolerance;
    base_.timing = spec_.timing;
    if (o_.in_process && devices_[0].cuda) base_.device_ordinal = *devices_[0].cuda;
    worker::BenchmarkRequest warmup = base_;
    warmup.warmup_only = true;
    BenchRunner runner(devices_, o_.in_process, o_.worker_path, o_.timeouts, warmup);
    runner.on_abort([this](const std::string& why) { save_partial(why); });
    runner.start();  // workers start and warm up while the choices precompile
    precompile(todo, runner);
    KILN_CHECK(runner.wait_ready());
    rep_.prepare_seconds = runner.prepare_seconds();
    log_workers("worker_started", runner);
    auto started = Clock::now();
    Status st = run_reference(runner);
    if (st.ok()) run_others(todo, runner, started);
    rep_.bench_seconds = seconds_since(started);
    log_workers("worker_final", runner);
    runner.stop();
    std::error_code ec;
    fs::remove(reference_output(), ec);
    KILN_CHECK(st);
    ChoiceTimings fresh;
    for (std::size_t i : todo)
        if (rep_.choices[i].status != ChoiceStatus::skipped) fresh[rep_.choices[i].key] = rep_.choices[i].ms;
    // A cache file that cannot take them must not lose the measurements: the report still comes back
    // (the update saved them elsewhere and says where), and the front end reports the failure.
    if (Status saved = cache_->update(key_, fresh); !saved.ok()) {
        rep_.cache_error = saved.error();
        log_->write("cache_write_failed", {{"error", saved.error().str()}});
    }
    return ok_status();
}

void Session::precompile(const std::vector<std::size_t>& todo, BenchRunner& runner) {
    auto started = Clock::now();
    {
        codecache::CompilePool pool(code_cache_, o_.compile_workers);
        std::vector<std::pair<std::size_t, std::shared_future<Result<codecache::CompileOutcome>>>> futures;
        for (std::size_t i : todo) futures.emplace_back(i, pool.compile_async(compile_requests_[i]));
        for (auto& [i, f] : futures) {
            const auto& out = f.get();
            auto& c = rep_.choices[i];
            if (out.ok()) {
                c.compile_seconds = out->seconds;
                c.library = out->output_path.string();
                libraries_[i] = out->output_path;
            } else {
                c.from_cache = false;
                c.ms = kFailedMs;
                c.status = ChoiceStatus::compile_error;
                c.reason = out.error().str();
            }
        }
    }
    if (o_.in_process)  // load while precompiling, like Inductor's precompile (CppCodeCache.load)
        for (const auto& [i, path] : libraries_)
            if (auto lib = code_cache_.load(path); lib.ok()) runner.preload(path, *lib);
    rep_.precompile_seconds = seconds_since(started);
    char took[32];
    std::snprintf(took, sizeof took, "%.4f", rep_.precompile_seconds);
    progress("precompiled " + std::to_string(todo.size()) + " choices in " + took + " s");
}

Status Session::run_reference(BenchRunner& runner) {
    if (!libraries_.count(0))
        return make_error(Errc::external, "the reference choice does not compile: " + rep_.choices[0].reason,
                          spec_.path.string());
    std::vector<worker::BenchmarkRequest> ref{request_for(0)};
    ref[0].save_output_path = reference_output().string();
    runner.run(ref, [this](std::size_t, const worker::BenchmarkResult& r) { record(0, r); });
    if (rep_.choices[0].status != ChoiceStatus::ok)
        return make_error(Errc::external, "the reference choice failed: " + rep_.choices[0].reason, spec_.path.string(),
                          "every other choice is checked against it; fix the reference parameters first");
    return ok_status();
}

// A time budget runs the choices in rounds and stops starting rounds once it is spent.
void Session::run_others(const std::vector<std::size_t>& todo, BenchRunner& runner, Clock::time_point started) {
    std::vector<std::size_t> rest;
    for (std::size_t i : todo)
        if (i != 0 && libraries_.count(i)) rest.push_back(i);
    const bool budget = spec_.strategy.seconds > 0;
    const std::size_t round = budget ? std::max<std::size_t>(devices_.size() * 2, 1) : rest.size();
    for (std::size_t first = 0; first < rest.size(); first += round) {
        if (budget && seconds_since(started) > spec_.strategy.seconds) {
            for (std::size_t k = first; k < rest.size(); ++k) {
                auto& c = rep_.choices[rest[k]];
                c.status = ChoiceStatus::skipped;
                c.reason = "time budget spent";
                c.ms = kFailedMs;
            }
            return;
        }
        std::vector<std::size_t> batch(rest.begin() + static_cast<long>(first),
                                       rest.begin() + static_cast<long>(std::min(rest.size(), first + round)));
        std::vector<worker::BenchmarkRequest> requests;
        for (std::size_t i : batch) {
            requests.push_back(request_for(i));
            requests.back().reference_output_path = reference_output().string();
        }
        runner.run(requests, [&](std::size_t k, const worker::BenchmarkResult& r) { record(batch[k], r); });
    }
}

// An in-process run that must end now (a kernel hung or ended the process): what was measured goes
// to the timing cache, the log says why the session ended.
void Session::save_partial(const std::string& why) {
    std::lock_guard lk(record_mutex_);
    ChoiceTimings done;
    for (std::size_t i : measured_) done[rep_.choices[i].key] = rep_.choices[i].ms;
    Status saved = done.empty() ? ok_status() : cache_->update(key_, done);
    log_->write("session_aborted", {{"reason", why},
                                    {"measured", done.size()},
                                    {"cache_error", saved.ok() ? std::string() : saved.error().str()}});
    if (!saved.ok()) std::fprintf(stderr, "kiln-cli: %s\n", saved.error().str().c_str());
}

void Session::record(std::size_t i, const worker::BenchmarkResult& r) {
    std::lock_guard lk(record_mutex_);
    measured_.push_back(i);
    auto& c = rep_.choices[i];
    c.from_cache = false;
    c.ms = r.ok() ? r.ms : kFailedMs;
    c.status = choice_status(r.status);
    c.reason = r.reason;
    c.device = r.device;
    c.stats = r.stats;
    c.overhead_seconds = std::max(0.0, r.wall_seconds - r.kernel_seconds - r.verify_seconds);
    c.verify_seconds = r.verify_seconds;
    c.details = r.details;
    if (r.worker_seconds > 0) c.details["phases_ms"]["ipc"] = (r.wall_seconds - r.worker_seconds) * 1000.0;
    log_->write("measurement", {{"device", r.device},
                                {"choice", c.key},
                                {"id", c.id},
                                {"params", c.params},
                                {"reference", c.is_reference},
                                {"compile_seconds", c.compile_seconds},
                                {"stats", to_json(r.stats)},
                                {"ms", r.ok() ? nlohmann::json(r.ms) : nlohmann::json()},
                                {"status", r.status},
                                {"reason", r.reason},
                                {"worker_pid", r.worker_pid},
                                {"kernel_seconds", r.kernel_seconds},
                                {"verify_seconds", r.verify_seconds},
                                {"wall_seconds", r.wall_seconds},
                                {"details", c.details}});
}

void Session::log_workers(const char* event, const BenchRunner& runner) {
    const bool started = std::string_view(event) == "worker_started";
    for (const auto& w : runner.workers()) {
        nlohmann::json ev{{"device", w.device.label()}, {"pid", w.pid}};
        if (started) {
            rep_.workers.push_back(w.pong);
            ev["pong"] = w.pong;
            ev["warmup_seconds"] = w.warmup_seconds;
            if (!w.warmup_error.empty()) ev["warmup_error"] = w.warmup_error;
        } else {
            ev["starts"] = w.starts;
        }
        log_->write(event, ev);
    }
}

void Session::log_cache_hits() {
    for (const auto& c : rep_.choices)
        log_->write("cache_hit", {{"choice", c.key}, {"id", c.id}, {"params", c.params}, {"ms", ms_or_null(c.ms)}});
}

void Session::finish() {
    double best = kFailedMs;
    for (const auto& c : rep_.choices)
        if (c.ms < best) {
            best = c.ms;
            rep_.best = c.key;
        }
    log_->write("session_end", {{"best", rep_.best},
                                {"best_ms", ms_or_null(best)},
                                {"cache_hit", rep_.cache_hit},
                                {"bench_seconds", rep_.bench_seconds},
                                {"precompile_seconds", rep_.precompile_seconds},
                                {"prepare_seconds", rep_.prepare_seconds}});
}

}  // namespace

Result<TuneReport> tune(const TuningSpec& spec, const TuneOptions& options) { return Session(spec, options).run(); }

}  // namespace kiln::tuning
