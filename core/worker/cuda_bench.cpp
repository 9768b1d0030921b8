#include "worker/cuda_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "worker/executor.hpp"

namespace kiln::worker {

using Clock = std::chrono::steady_clock;
using cuda::check;

Result<std::unique_ptr<CudaBench>> CudaBench::create(int ordinal) {
    KILN_TRY(const cuda::Api* a, cuda::api());
    std::unique_ptr<CudaBench> b(new CudaBench());
    b->api_ = a;
    b->ordinal_ = ordinal;
    cuda::CUdevice dev = 0;
    KILN_CHECK(check(a->cuDeviceGet(&dev, ordinal), "cuDeviceGet"));
    // The primary context is the one the CUDA runtime inside the kernel library uses too.
    KILN_CHECK(check(a->cuDevicePrimaryCtxRetain(&b->ctx_, dev), "cuDevicePrimaryCtxRetain"));
    KILN_CHECK(b->set_current());
    // KILN_BENCH_STREAM=legacy: time on the legacy default stream, the one torch's benchmarker uses
    // (its current stream), to compare the two (bench/gpu/retune_loop.sh).
    const char* which = std::getenv("KILN_BENCH_STREAM");
    if (which && std::string_view(which) == "legacy")
        b->stream_ = reinterpret_cast<cuda::CUstream>(std::uintptr_t{1});  // CU_STREAM_LEGACY
    else KILN_CHECK(check(a->cuStreamCreate(&b->stream_, 0), "cuStreamCreate"));
    int l2 = 0;
    KILN_CHECK(check(a->cuDeviceGetAttribute(&l2, cuda::kAttrL2CacheSize, dev), "cuDeviceGetAttribute(L2)"));
    // triton's flush buffer is 256 MB; keep at least twice the L2 for larger future caches.
    b->flush_bytes_ = std::max<std::size_t>(256'000'000, 2 * static_cast<std::size_t>(l2));
    b->l2_bytes_ = l2 > 0 ? static_cast<std::size_t>(l2) / 4 * 4 : 256u << 20;  // torch: L2_cache_size // 4 ints
    KILN_CHECK(check(a->cuMemAlloc(&b->flush_, b->flush_bytes_), "cuMemAlloc(L2 flush buffer)"));
    return b;
}

CudaBench::~CudaBench() {
    if (!api_) return;
    (void)set_current();
    for (auto e : starts_) api_->cuEventDestroy(e);
    for (auto e : ends_) api_->cuEventDestroy(e);
    for (auto& [k, p] : inputs_) api_->cuMemFree(p);
    if (flush_) api_->cuMemFree(flush_);
    if (pinned_) api_->cuMemFreeHost(pinned_);
    if (out_) api_->cuMemFree(out_);
    if (workspace_) api_->cuMemFree(workspace_);
    if (counter_) api_->cuMemFree(counter_);
}

Status CudaBench::set_current() { return check(api_->cuCtxSetCurrent(ctx_), "cuCtxSetCurrent"); }

Result<cuda::CUdeviceptr> CudaBench::device_input(const std::string& key, const std::vector<std::byte>& host) {
    if (auto it = inputs_.find(key); it != inputs_.end()) return it->second;
    cuda::CUdeviceptr p = 0;
    KILN_CHECK(check(api_->cuMemAlloc(&p, std::max<std::size_t>(host.size(), 1)), "cuMemAlloc(input)"));
    if (!host.empty()) KILN_CHECK(check(api_->cuMemcpyHtoD(p, host.data(), host.size()), "cuMemcpyHtoD(input)"));
    inputs_[key] = p;
    return p;
}

Result<cuda::CUdeviceptr> CudaBench::scratch(std::size_t bytes, cuda::CUdeviceptr& slot, std::size_t& have) {
    if (have < bytes) {
        if (slot) KILN_CHECK(check(api_->cuMemFree(slot), "cuMemFree"));
        slot = 0;
        KILN_CHECK(check(api_->cuMemAlloc(&slot, std::max<std::size_t>(bytes, 1)), "cuMemAlloc"));
        have = bytes;
    }
    return slot;
}

Status CudaBench::ensure_events(std::size_t n) {
    while (starts_.size() < n) {
        cuda::CUevent s = nullptr, e = nullptr;
        KILN_CHECK(check(api_->cuEventCreate(&s, 0), "cuEventCreate"));
        KILN_CHECK(check(api_->cuEventCreate(&e, 0), "cuEventCreate"));
        starts_.push_back(s);
        ends_.push_back(e);
    }
    return ok_status();
}

std::string CudaBench::input_key(const TensorMeta& t, std::uint64_t seed) {
    return to_json(t).dump() + "#" + std::to_string(seed);
}

Status CudaBench::prepare(const BenchmarkRequest& req, const std::vector<const std::vector<std::byte>*>& inputs,
                          const std::vector<std::byte>& out_init) {
    KILN_CHECK(set_current());
    for (size_t i = 0; i < inputs.size(); ++i) {
        KILN_TRY(auto in, device_input(input_key(req.inputs[i], req.seed + i), *inputs[i]));
        (void)in;
    }
    KILN_TRY(auto init, output_start(req, out_init));
    KILN_TRY(auto out, scratch(req.output.storage_bytes(), out_, out_bytes_));
    (void)init, (void)out;
    return ensure_events(64);
}

Result<std::byte*> CudaBench::host_pinned(std::size_t bytes) {
    if (pinned_bytes_ < bytes) {
        if (pinned_) KILN_CHECK(check(api_->cuMemFreeHost(pinned_), "cuMemFreeHost"));
        pinned_ = nullptr;
        pinned_bytes_ = 0;
        void* p = nullptr;
        KILN_CHECK(
            check(api_->cuMemAllocHost(&p, std::max<std::size_t>(bytes, 1)), "cuMemAllocHost(output read-back)"));
        pinned_ = static_cast<std::byte*>(p);
        pinned_bytes_ = bytes;
    }
    return pinned_;
}

const DeviceKernels* CudaBench::kernels() {
    if (!kernels_tried_) {
        kernels_tried_ = true;
        if (auto k = DeviceKernels::load(api_); k.ok()) kernels_ = std::move(*k);
    }
    return kernels_ ? &*kernels_ : nullptr;
}

bool CudaBench::seed_on_device(const BenchmarkRequest& req) {
    const DeviceKernels* k = kernels();
    if (!k || !DeviceKernels::covers(req.output.dtype)) return false;
    for (const auto& t : req.inputs)
        if (!DeviceKernels::covers(t.dtype)) return false;
    if (!set_current().ok()) return false;
    auto make = [&](const std::string& key, const TensorMeta& t, std::uint64_t seed) {
        if (inputs_.count(key)) return true;
        cuda::CUdeviceptr p = 0;
        if (!check(api_->cuMemAlloc(&p, std::max<std::size_t>(t.storage_bytes(), 1)), "cuMemAlloc(input)").ok())
            return false;
        if (!k->fill_random(p, t.storage_elements(), t.dtype, seed, stream_).ok()) {
            api_->cuMemFree(p);
            return false;
        }
        inputs_[key] = p;
        return true;
    };
    for (std::size_t i = 0; i < req.inputs.size(); ++i)
        if (!make(input_key(req.inputs[i], req.seed + i), req.inputs[i], req.seed + i)) return false;
    // The output's start has its own seed, as the host's host_output_init.
    return make("output:" + input_key(req.output, req.seed), req.output, req.seed + 1000003);
}

Result<cuda::CUdeviceptr> CudaBench::keyed_buffer(const std::string& key, std::size_t bytes, bool& fresh) {
    fresh = false;
    if (auto it = inputs_.find(key); it != inputs_.end()) return it->second;
    cuda::CUdeviceptr p = 0;
    KILN_CHECK(check(api_->cuMemAlloc(&p, std::max<std::size_t>(bytes, 1)), "cuMemAlloc(reference)"));
    inputs_[key] = p;
    fresh = true;
    return p;
}

void CudaBench::forget(const std::string& key) {
    if (auto it = inputs_.find(key); it != inputs_.end()) {
        api_->cuMemFree(it->second);
        inputs_.erase(it);
    }
}

Result<cuda::CUdeviceptr> CudaBench::output_start(const BenchmarkRequest& req, const std::vector<std::byte>& out_init) {
    return device_input("output:" + input_key(req.output, req.seed), out_init);
}

Result<std::uint64_t> CudaBench::mismatches(cuda::CUdeviceptr a, cuda::CUdeviceptr b, std::uint64_t elements,
                                            DType dtype, const Tolerance& tol) {
    const DeviceKernels* k = kernels();
    if (!k) return make_error(Errc::unavailable, "Kiln's device kernels did not load");
    if (!counter_) KILN_CHECK(check(api_->cuMemAlloc(&counter_, sizeof(std::uint64_t)), "cuMemAlloc(counter)"));
    KILN_CHECK(check(api_->cuMemsetD8Async(counter_, 0, sizeof(std::uint64_t), stream_), "cuMemsetD8Async"));
    KILN_CHECK(k->count_mismatches(a, b, elements, dtype, tol, counter_, stream_));
    std::uint64_t bad = 0;
    KILN_CHECK(check(api_->cuStreamSynchronize(stream_), "output check"));
    KILN_CHECK(check(api_->cuMemcpyDtoH(&bad, counter_, sizeof bad), "cuMemcpyDtoH(counter)"));
    return bad;
}

Result<std::vector<std::byte>> CudaBench::read_back(cuda::CUdeviceptr p, std::size_t bytes) {
    std::vector<std::byte> host(bytes);
    KILN_CHECK(check(api_->cuStreamSynchronize(stream_), "read back"));
    if (bytes) KILN_CHECK(check(api_->cuMemcpyDtoH(host.data(), p, bytes), "cuMemcpyDtoH"));
    return host;
}

Result<cuda::CUdeviceptr> CudaBench::extra_buffer(std::size_t bytes) { return scratch(bytes, extra_, extra_bytes_); }

BenchmarkResult CudaBench::run(const BenchmarkRequest& req, void* fn,
                               const std::vector<const std::vector<std::byte>*>& inputs,
                               const std::vector<std::byte>& out_init, std::span<const std::byte>& output) {
    std::size_t ws = 0;
    auto make = [&](const std::vector<std::uint64_t>& ins, std::uint64_t out, cuda::CUstream stream) -> Result<Launch> {
        std::vector<std::uint64_t> args = ins;
        args.push_back(out);
        for (auto e : req.extra_args) args.push_back(static_cast<std::uint64_t>(e));
        // Ask for the workspace size first (workspace_size pointer set, workspace null).
        std::vector<std::uint64_t> query = args;
        query.push_back(reinterpret_cast<std::uintptr_t>(&ws));
        query.push_back(0);
        query.push_back(reinterpret_cast<std::uintptr_t>(stream));
        KILN_TRY(auto q, call_with_u64_args(fn, query));
        if (static_cast<int>(q) != 0)
            return make_error(Errc::external, "workspace query returned " + std::to_string(static_cast<int>(q)));
        cuda::CUdeviceptr wsp = 0;
        if (ws > 0) {
            KILN_TRY(wsp, scratch(ws, workspace_, workspace_bytes_));
        }
        args.push_back(0);
        args.push_back(wsp);
        args.push_back(reinterpret_cast<std::uintptr_t>(stream));
        return Launch([fn, args]() -> int {
            auto rc = call_with_u64_args(fn, args);
            return rc.ok() ? static_cast<int>(*rc) : -1;
        });
    };
    auto r = run_launch(req, make, inputs, out_init, output);
    if (r.ok()) r.details["workspace_bytes"] = ws;
    return r;
}

// CUDA errors after which the context is unusable (cudaErrorIllegalAddress and its kin).
static bool sticky_error(const Error& e) {
    for (const char* code : {"(CUresult 700)", "(CUresult 701)", "(CUresult 714)", "(CUresult 715)", "(CUresult 716)",
                             "(CUresult 717)", "(CUresult 718)", "(CUresult 719)", "(CUresult 720)"})
        if (e.message.find(code) != std::string::npos) return true;
    return false;
}

BenchmarkResult CudaBench::run_launch(const BenchmarkRequest& req, const MakeLaunch& make,
                                      const std::vector<const std::vector<std::byte>*>& inputs,
                                      const std::vector<std::byte>& out_init, std::span<const std::byte>& output,
                                      const DeviceCheck& device_check, const std::function<void()>& while_waiting) {
    auto fail = [](const Error& e) {
        auto r = BenchmarkResult::failure(BenchStatus::error, e.str());
        if (sticky_error(e)) r.details["context_lost"] = true;
        return r;
    };
    // The kernel itself failed to launch or run (a launch error, a fault on the stream): torch's
    // autotuner records such a choice as inf (a RuntimeError or OutOfResources, select_algorithm.py),
    // unlike a failure of Kiln's own set-up.
    auto kernel_fail = [&](const Error& e) {
        auto r = fail(e);
        r.details["kernel_failed"] = true;
        return r;
    };
    // Where the time goes, for the overhead benchmark: each phase's wall time in ms.
    nlohmann::json phases = nlohmann::json::object();
    auto mark = Clock::now();
    auto lap = [&](const char* name) {
        auto now = Clock::now();
        phases[name] = std::chrono::duration<double, std::milli>(now - mark).count();
        mark = now;
    };
    if (auto st = set_current(); !st.ok()) return fail(st.error());
    std::vector<std::uint64_t> ins;
    for (size_t i = 0; i < inputs.size(); ++i) {
        auto p = device_input(input_key(req.inputs[i], req.seed + i), *inputs[i]);
        if (!p.ok()) return fail(p.error());
        ins.push_back(*p + static_cast<std::uint64_t>(req.inputs[i].offset) * dtype_size(req.inputs[i].dtype));
    }
    // The output's random start stays on the device; each choice starts from a device-to-device copy.
    const std::size_t out_bytes = req.output.storage_bytes();
    auto init = output_start(req, out_init);
    if (!init.ok()) return fail(init.error());
    auto out = scratch(out_bytes, out_, out_bytes_);
    if (!out.ok()) return fail(out.error());
    if (auto st = check(api_->cuMemcpyDtoDAsync(*out, *init, out_bytes, stream_), "cuMemcpyDtoDAsync(output)");
        !st.ok())
        return fail(st.error());
    std::uint64_t out_addr = *out + static_cast<std::uint64_t>(req.output.offset) * dtype_size(req.output.dtype);
    const bool read_output = !device_check || !req.save_output_path.empty() || !req.reference_output_path.empty();
    std::byte* pinned = nullptr;
    if (read_output) {
        auto p = host_pinned(out_bytes);
        if (!p.ok()) return fail(p.error());
        pinned = *p;
    }
    lap("setup");

    auto made = make(ins, out_addr, stream_);
    if (!made.ok()) return made.error().code == Errc::limit ? kernel_fail(made.error()) : fail(made.error());
    const Launch& kernel = *made;
    lap("workspace");

    int launch_error = 0;
    auto launch = [&] {
        int rc = kernel();
        if (rc != 0 && launch_error == 0) launch_error = rc;
    };
    auto launch_failed = [&]() -> BenchmarkResult {
        // The kernel's own report, in the driver's words when it is a CUresult.
        return kernel_fail(check(launch_error, "kernel launch").error());
    };
    auto flush = [&] { return api_->cuMemsetD8Async(flush_, 0, flush_bytes_, stream_); };
    auto sync = [&](const char* what) { return check(api_->cuStreamSynchronize(stream_), what); };

    auto k0 = Clock::now();  // the first run is the kernel's time too (its module loads lazily here)
    launch();
    if (auto st = sync("first run"); !st.ok()) return kernel_fail(st.error());
    if (launch_error) return launch_failed();
    lap("first_run");
    auto d2h = Clock::now();
    if (device_check) {
        auto verdict = device_check(ins, out_addr, *out);
        if (!verdict.ok()) return fail(verdict.error());
        if (!verdict->empty()) return BenchmarkResult::failure(BenchStatus::mismatch, *verdict);
        lap("device_check");
    }
    if (read_output) {
        if (auto st = check(api_->cuMemcpyDtoHAsync(pinned, *out, out_bytes, stream_), "cuMemcpyDtoHAsync(output)");
            !st.ok())
            return fail(st.error());
        if (auto st = sync("output read-back"); !st.ok()) return fail(st.error());
        output = std::span<const std::byte>(pinned, out_bytes);
        lap("read_back");
    }
    double d2h_seconds = std::chrono::duration<double>(Clock::now() - d2h).count();

    if (req.timing.statistic == Statistic::torch_min) {
        // torch 2.11's InductorBenchmarker.benchmark_gpu, step by step: the first run above, then
        // 5 estimate pairs and min(100, 25 ms // estimate) timed pairs after 100 flushes, each pair
        // preceded by zeroing an L2-sized buffer; the result is the minimum over all pairs.
        auto zero_l2 = [&] { return api_->cuMemsetD8Async(flush_, 0, std::min(l2_bytes_, flush_bytes_), stream_); };
        auto pairs = [&](std::size_t n, std::vector<double>& out) -> Status {
            KILN_CHECK(ensure_events(n));
            for (std::size_t i = 0; i < n; ++i) {
                zero_l2();
                api_->cuEventRecord(starts_[i], stream_);
                launch();
                api_->cuEventRecord(ends_[i], stream_);
            }
            KILN_CHECK(sync("timed runs"));
            for (std::size_t i = 0; i < n; ++i) {
                float ms = 0;
                KILN_CHECK(check(api_->cuEventElapsedTime(&ms, starts_[i], ends_[i]), "cuEventElapsedTime"));
                out.push_back(ms);
            }
            return ok_status();
        };
        std::vector<double> estimate, timed;
        if (auto st = pairs(5, estimate); !st.ok()) return kernel_fail(st.error());
        if (launch_error) return launch_failed();
        const double est = *std::min_element(estimate.begin(), estimate.end());
        int n = 100;
        if (est > 0) n = std::max(std::min(100, static_cast<int>(std::floor(25.0 / est))), 1);
        for (int i = 0; i < 100; ++i) zero_l2();
        if (while_waiting) while_waiting();
        if (auto st = pairs(static_cast<std::size_t>(n), timed); !st.ok()) return kernel_fail(st.error());
        if (launch_error) return launch_failed();
        lap("torch_min_timing");
        BenchmarkResult r;
        r.kernel_seconds = std::chrono::duration<double>(Clock::now() - k0).count() - d2h_seconds;
        r.verify_seconds = d2h_seconds;
        r.stats = summarize(timed);  // the spread of the timed pairs, for the report
        r.ms = std::min(est, r.stats.min);
        r.stats.min = r.ms;
        r.device = "cuda:" + std::to_string(ordinal_);
        r.details["warmup_runs"] = 0;
        r.details["timed_runs"] = n;
        r.details["estimate_runs"] = 5;
        r.details["statistic"] = statistic_name(Statistic::torch_min);
        r.details["phases_ms"] = std::move(phases);
        return r;
    }

    if (auto st = ensure_events(1); !st.ok()) return fail(st.error());
    api_->cuEventRecord(starts_[0], stream_);
    for (int i = 0; i < 5; ++i) {
        flush();
        launch();
    }
    api_->cuEventRecord(ends_[0], stream_);
    if (auto st = sync("estimate"); !st.ok()) return kernel_fail(st.error());
    float est_total = 0;
    if (auto st = check(api_->cuEventElapsedTime(&est_total, starts_[0], ends_[0]), "cuEventElapsedTime"); !st.ok())
        return fail(st.error());
    lap("estimate");
    double est = std::max(static_cast<double>(est_total) / 5.0, 1e-6);
    int n_warmup = std::clamp(static_cast<int>(req.timing.warmup_ms / est), 1, req.timing.max_reps);
    int n_rep =
        std::clamp(static_cast<int>(req.timing.rep_ms / est), std::max(req.timing.min_reps, 1), req.timing.max_reps);
    if (auto st = ensure_events(static_cast<std::size_t>(n_rep)); !st.ok()) return fail(st.error());
    for (int i = 0; i < n_warmup; ++i) launch();
    // Samples are read while later runs execute (every 64 enqueued, those already done), between an
    // end event and the next flush, so the host's reading never sits between a start event and its
    // kernel and only the last few are left for after the stream drains.
    std::vector<double> samples;
    samples.reserve(static_cast<size_t>(n_rep));
    Status read_error = ok_status();
    auto read_samples = [&](std::size_t upto, bool wait) {
        while (samples.size() < upto && read_error.ok()) {
            std::size_t i = samples.size();
            if (!wait && api_->cuEventQuery(ends_[i]) != 0) return;
            float ms = 0;
            read_error = check(api_->cuEventElapsedTime(&ms, starts_[i], ends_[i]), "cuEventElapsedTime");
            samples.push_back(ms);
        }
    };
    for (int i = 0; i < n_rep; ++i) {
        if (req.timing.flush_l2) flush();
        api_->cuEventRecord(starts_[static_cast<size_t>(i)], stream_);
        launch();
        api_->cuEventRecord(ends_[static_cast<size_t>(i)], stream_);
        if ((i & 63) == 63) read_samples(static_cast<std::size_t>(i) + 1, false);
    }
    if (while_waiting) while_waiting();
    // The rest are read as each run ends: the host is far ahead of a device that flushes the L2
    // before every run, so most samples are still queued here.
    while (samples.size() < static_cast<std::size_t>(n_rep) && read_error.ok()) {
        std::size_t i = samples.size();
        if (auto st = check(api_->cuEventSynchronize(ends_[i]), "timed runs"); !st.ok()) return kernel_fail(st.error());
        read_samples(i + 1, true);
    }
    if (auto st = sync("timed runs"); !st.ok()) return kernel_fail(st.error());
    if (launch_error) return launch_failed();
    if (!read_error.ok()) return fail(read_error.error());
    auto kernel_end = Clock::now();
    lap("warmup_and_timed");
    BenchmarkResult r;
    // The kernel's own runs: the first, the estimate, warm-up and timed runs up to the stream's
    // end; the output check and reading the samples are overhead.
    r.kernel_seconds = std::chrono::duration<double>(kernel_end - k0).count() - d2h_seconds;
    r.verify_seconds = d2h_seconds;
    r.stats = summarize(samples);
    r.ms = r.stats.median;
    r.details["statistic"] = statistic_name(Statistic::median);
    lap("statistics");
    r.device = "cuda:" + std::to_string(ordinal_);
    r.details["warmup_runs"] = n_warmup;
    r.details["timed_runs"] = n_rep;
    r.details["phases_ms"] = std::move(phases);
    return r;
}

}  // namespace kiln::worker
