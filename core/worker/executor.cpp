#include "worker/executor.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <span>
#include <thread>

#include "codecache/library.hpp"
#include "util/atomic_file.hpp"
#include "util/regular_file.hpp"
#include "worker/cuda_bench.hpp"
#include "worker/inductor_module.hpp"

namespace kiln::worker {

using Clock = std::chrono::steady_clock;

Executor::Executor() = default;

Executor::~Executor() {
    {
        std::lock_guard lk(lib_mutex_);
        stopping_ = true;
        prefetch_queue_.clear();
    }
    lib_cv_.notify_all();
    if (loader_.joinable()) loader_.join();
}

void Executor::prefetch(const std::vector<std::string>& paths) {
    if (paths.empty()) return;
    {
        std::lock_guard lk(lib_mutex_);
        for (const auto& p : paths)
            if (!libraries_.count(p) && !loading_.count(p) &&
                std::find(prefetch_queue_.begin(), prefetch_queue_.end(), p) == prefetch_queue_.end())
                prefetch_queue_.push_back(p);
        if (!loader_.joinable()) loader_ = std::thread([this] { loader_loop(); });
    }
    lib_cv_.notify_all();
}

bool Executor::loaded(const std::string& path) {
    std::lock_guard lk(lib_mutex_);
    return libraries_.count(path) > 0;
}

void Executor::loader_loop() {
    std::unique_lock lk(lib_mutex_);
    for (;;) {
        lib_cv_.wait(lk, [&] { return stopping_ || !prefetch_queue_.empty(); });
        if (stopping_) return;
        std::string path = std::move(prefetch_queue_.front());
        prefetch_queue_.pop_front();
        loading_.insert(path);
        lk.unlock();
        auto lib = codecache::Library::open(path);
        lk.lock();
        loading_.erase(path);
        if (lib.ok()) libraries_.emplace(path, *lib);
        lib_cv_.notify_all();
    }
}

nlohmann::json Executor::describe_process() {
    nlohmann::json j{{"pid", static_cast<int>(::getpid())}};
    const char* vis = std::getenv("CUDA_VISIBLE_DEVICES");
    j["cuda_visible_devices"] = vis ? nlohmann::json(vis) : nlohmann::json();
    if (vis) {
        auto t0 = std::chrono::steady_clock::now();
        auto n = cuda::device_count();
        j["cuda_init_ms"] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (!n.ok()) {
            j["cuda_error"] = n.error().str();
        } else {
            j["device_count"] = *n;
            if (*n > 0)
                if (auto f = cuda::device_facts(0); f.ok()) {
                    j["device_name"] = f->name;
                    j["pci_bus_id"] = f->pci_bus_id;
                    j["cc_major"] = f->cc_major;
                    j["cc_minor"] = f->cc_minor;
                }
        }
    }
    return j;
}

BenchmarkResult Executor::run(const BenchmarkRequest& req) {
    auto t0 = Clock::now();
    prefetch(req.prefetch_libraries);
    BenchmarkResult r;
    switch (req.kind) {
        case RequestKind::test: r = run_test(req); break;
        case RequestKind::cpp: r = run_cpp(req); break;
        case RequestKind::cuda: r = run_cuda(req); break;
        case RequestKind::inductor_module: r = run_inductor_module(req); break;
        case RequestKind::triton:
        case RequestKind::gemm: r = run_compiled(req); break;
        default:
            r = BenchmarkResult::failure(BenchStatus::error,
                                         std::string("not a benchmark request: ") + request_kind_name(req.kind));
    }
    if (!r.ok()) r.ms = std::numeric_limits<double>::infinity();
    r.worker_pid = static_cast<int>(::getpid());
    r.worker_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
}

// A warm-up's answer: nothing was timed.
static BenchmarkResult warmed_up() {
    BenchmarkResult r;
    r.ms = 0;
    r.details["warmup"] = true;
    return r;
}

BenchmarkResult Executor::run_test(const BenchmarkRequest& req) {
    const std::string& m = req.test_mode;
    if (m == "value" || m == "sleep") {
        if (req.test_sleep_ms > 0)
            std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(req.test_sleep_ms));
        BenchmarkResult r;
        r.ms = req.test_value;
        r.stats = summarize({req.test_value});
        r.kernel_seconds = req.test_sleep_ms / 1000.0;
        return r;
    }
    if (m == "slow_exit") {
        exit_delay_ms_ = req.test_sleep_ms;
        BenchmarkResult r;
        r.ms = req.test_value;
        r.stats = summarize({req.test_value});
        return r;
    }
    if (m == "error") return BenchmarkResult::failure(BenchStatus::error, "Failed to run (test request)");
    if (m == "segfault") {
        std::signal(SIGSEGV, SIG_DFL);
        std::raise(SIGSEGV);
    }
    if (m == "abort") std::abort();
    if (m == "hang")
        for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    return BenchmarkResult::failure(BenchStatus::error, "unknown test mode '" + m + "'");
}

Result<std::shared_ptr<codecache::Library>> Executor::library(const std::string& path) {
    {
        std::unique_lock lk(lib_mutex_);
        // Being loaded in the background: wait for it rather than pay dlopen twice.
        lib_cv_.wait(lk, [&] { return !loading_.count(path); });
        if (auto it = libraries_.find(path); it != libraries_.end()) return it->second;
        if (auto q = std::find(prefetch_queue_.begin(), prefetch_queue_.end(), path); q != prefetch_queue_.end())
            prefetch_queue_.erase(q);
    }
    KILN_TRY(auto lib, codecache::Library::open(path));
    std::lock_guard lk(lib_mutex_);
    libraries_[path] = lib;
    return lib;
}

void Executor::preload(const std::string& path, std::shared_ptr<codecache::Library> library) {
    std::lock_guard lk(lib_mutex_);
    libraries_[path] = std::move(library);
}

const std::vector<std::byte>& Executor::host_output_init(const TensorMeta& t, std::uint64_t seed) {
    std::string key = to_json(t).dump() + "#" + std::to_string(seed);
    auto it = host_outputs_.find(key);
    if (it == host_outputs_.end()) it = host_outputs_.emplace(key, random_storage(t, seed)).first;
    return it->second;
}

const std::vector<std::byte>& Executor::host_input(const TensorMeta& t, std::uint64_t seed) {
    std::string key = to_json(t).dump() + "#" + std::to_string(seed);
    auto it = host_inputs_.find(key);
    if (it == host_inputs_.end()) it = host_inputs_.emplace(key, random_storage(t, seed)).first;
    return it->second;
}

Result<const std::vector<std::byte>*> Executor::reference(const std::string& path, std::size_t bytes) {
    if (auto it = references_.find(path); it != references_.end() && it->second.size() == bytes) return &it->second;
    // Kiln's own file (the reference choice saved it), read as every input is (util/regular_file):
    // a FIFO or device put in its place never blocks the worker.
    auto file = open_regular_file(path);
    if (!file) {
        if (file.error().code == Errc::not_found)
            return make_error(Errc::not_found, "reference output missing", path, "the reference choice must run first");
        return file.error();
    }
    KILN_TRY(std::string text, read_prefix(*file, bytes, path));
    if (text.size() != bytes) return make_error(Errc::parse, "reference output has the wrong size", path);
    std::vector<std::byte> data(bytes);
    if (bytes) std::memcpy(data.data(), text.data(), bytes);
    auto& kept = references_[path];
    kept = std::move(data);
    return &kept;
}

// Saves or checks the output of the first run. Empty: fine; otherwise the failure to report.
static BenchmarkResult check_output(Executor& ex, const BenchmarkRequest& req, std::span<const std::byte> out,
                                    Result<const std::vector<std::byte>*> (Executor::*reference)(const std::string&,
                                                                                                 std::size_t)) {
    if (!req.save_output_path.empty()) {
        auto st =
            write_atomic(req.save_output_path, std::string_view(reinterpret_cast<const char*>(out.data()), out.size()));
        if (!st.ok())
            return BenchmarkResult::failure(BenchStatus::error,
                                            "cannot save the reference output: " + st.error().str());
    }
    if (!req.reference_output_path.empty()) {
        auto ref = (ex.*reference)(req.reference_output_path, out.size());
        if (!ref.ok()) return BenchmarkResult::failure(BenchStatus::error, ref.error().str());
        std::string diff = compare_storage(req.output, out.data(), (*ref)->data(), req.tolerance);
        if (!diff.empty()) return BenchmarkResult::failure(BenchStatus::mismatch, "mismatch: " + diff);
    }
    return {};
}

BenchmarkResult Executor::verify_output(const BenchmarkRequest& req, std::span<const std::byte> out) {
    return check_output(*this, req, out, &Executor::reference);
}

BenchmarkResult Executor::run_cpp(const BenchmarkRequest& req) {
    if (req.warmup_only) {
        for (size_t i = 0; i < req.inputs.size(); ++i) (void)host_input(req.inputs[i], req.seed + i);
        (void)host_output_init(req.output, req.seed + 1000003);
        return warmed_up();
    }
    auto lib = library(req.library_path);
    if (!lib.ok()) return BenchmarkResult::failure(BenchStatus::error, lib.error().str());
    auto sym = (*lib)->raw_symbol(req.kernel_name);
    if (!sym.ok()) return BenchmarkResult::failure(BenchStatus::error, sym.error().str());

    std::vector<std::uint64_t> args;
    for (size_t i = 0; i < req.inputs.size(); ++i) {
        const auto& buf = host_input(req.inputs[i], req.seed + i);
        // Like tensor.data_ptr(): the storage plus the view's offset.
        args.push_back(reinterpret_cast<std::uintptr_t>(buf.data()) +
                       static_cast<std::uint64_t>(req.inputs[i].offset) * dtype_size(req.inputs[i].dtype));
    }
    std::vector<std::byte> out = host_output_init(req.output, req.seed + 1000003);  // a copy: the kernel writes it
    args.push_back(reinterpret_cast<std::uintptr_t>(out.data()) +
                   static_cast<std::uint64_t>(req.output.offset) * dtype_size(req.output.dtype));
    for (auto e : req.extra_args) args.push_back(static_cast<std::uint64_t>(e));

    auto once = [&]() -> double {
        auto a = Clock::now();
        (void)call_with_u64_args(*sym, args);
        return std::chrono::duration<double, std::milli>(Clock::now() - a).count();
    };
    if (args.size() > 24) return BenchmarkResult::failure(BenchStatus::error, "kernel takes more than 24 arguments");
    auto k0 = Clock::now();
    double first = once();
    auto v0 = Clock::now();
    BenchmarkResult bad = check_output(*this, req, std::span<const std::byte>(out), &Executor::reference);
    if (!bad.reason.empty()) return bad;
    double verify = std::chrono::duration<double>(Clock::now() - v0).count();

    // do_bench's plan: estimate from a few runs, then fill warmup_ms and rep_ms.
    double est = first;
    for (int i = 0; i < 3; ++i) est = std::min(est, once());
    est = std::max(est, 1e-4);
    int n_warmup = std::clamp(static_cast<int>(req.timing.warmup_ms / est), 1, req.timing.max_reps);
    int n_rep = std::clamp(static_cast<int>(req.timing.rep_ms / est), req.timing.min_reps, req.timing.max_reps);
    for (int i = 0; i < n_warmup; ++i) once();
    std::vector<double> samples;
    samples.reserve(static_cast<size_t>(n_rep));
    for (int i = 0; i < n_rep; ++i) samples.push_back(once());

    BenchmarkResult r;
    r.kernel_seconds = std::chrono::duration<double>(Clock::now() - k0).count() - verify;
    r.verify_seconds = verify;
    r.stats = summarize(samples);
    r.ms = r.stats.median;
    r.device = "cpu";
    return r;
}

BenchmarkResult Executor::run_cuda(const BenchmarkRequest& req) {
    auto& slot = cuda_[req.device_ordinal];
    if (!slot) {
        auto made = CudaBench::create(req.device_ordinal);
        if (!made.ok()) return BenchmarkResult::failure(BenchStatus::error, made.error().str());
        slot = std::move(*made);
    }
    if (req.warmup_only) {
        std::vector<const std::vector<std::byte>*> inputs;
        for (size_t i = 0; i < req.inputs.size(); ++i) inputs.push_back(&host_input(req.inputs[i], req.seed + i));
        if (auto st = slot->prepare(req, inputs, host_output_init(req.output, req.seed + 1000003)); !st.ok())
            return BenchmarkResult::failure(BenchStatus::error, st.error().str());
        return warmed_up();
    }
    auto l0 = Clock::now();
    auto lib = library(req.library_path);
    if (!lib.ok()) return BenchmarkResult::failure(BenchStatus::error, lib.error().str());
    auto sym = (*lib)->raw_symbol(req.kernel_name);
    if (!sym.ok()) return BenchmarkResult::failure(BenchStatus::error, sym.error().str());
    double library_ms = std::chrono::duration<double, std::milli>(Clock::now() - l0).count();
    std::vector<const std::vector<std::byte>*> inputs;
    for (size_t i = 0; i < req.inputs.size(); ++i) inputs.push_back(&host_input(req.inputs[i], req.seed + i));
    const std::vector<std::byte>& out_init = host_output_init(req.output, req.seed + 1000003);
    std::span<const std::byte> output;
    auto r = slot->run(req, *sym, inputs, out_init, output);
    if (!r.ok()) return r;
    auto v0 = Clock::now();
    BenchmarkResult bad = check_output(*this, req, output, &Executor::reference);
    if (!bad.reason.empty()) return bad;
    double compare = std::chrono::duration<double>(Clock::now() - v0).count();
    r.verify_seconds += compare;
    r.details["phases_ms"]["library"] = library_ms;
    r.details["phases_ms"]["compare"] = compare * 1000.0;
    return r;
}

}  // namespace kiln::worker
