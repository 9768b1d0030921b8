// Executor's kernels that come compiled: a Triton cubin launched through the driver API, as
// Triton's NVIDIA launcher does, and a cuBLAS call standing for an extern (ATen) choice. Both are
// timed by CudaBench::run_launch and checked against the reference output like the seed's kernels.
#include <fcntl.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <span>

#include "cuda/cublas.hpp"
#include "util/regular_file.hpp"
#include "worker/cuda_bench.hpp"
#include "worker/device_kernels.hpp"
#include "worker/executor.hpp"

namespace kiln::worker {

using cuda::check;

// A cubin or PTX of one kernel is a few MB at most; a larger "binary" is not one.
constexpr std::uint64_t kMaxKernelBinaryBytes = 256u << 20;

Result<cuda::CUfunction> Executor::triton_function(const TritonBinary& b) {
    std::string key = b.cubin + "#" + b.function;
    if (auto it = functions_.find(key); it != functions_.end()) return it->second;
    KILN_TRY(const cuda::Api* a, cuda::api());
    if (cache_root_fd_ < 0)
        return make_error(Errc::invalid_argument,
                          "the worker was given no cache root to read the kernel binary beneath", b.cubin,
                          "kiln-worker --root-fd N: the tuning pool passes the root the command opened");
    // A cache file beneath the root the command opened (its descriptor, inherited): util/regular_file's
    // rules (a FIFO never blocks, no symlink followed, atime kept), bounded.
    auto opened = open_regular_file_beneath(cache_root_fd_, b.cubin, b.cubin);
    if (!opened)
        return make_error(opened.error().code, "cannot read the kernel binary: " + opened.error().message, b.cubin);
    KILN_TRY(std::string data, read_opened_file(*opened, b.cubin, kMaxKernelBinaryBytes));
    data.push_back('\0');  // PTX text must end in NUL; a cubin ignores it
    cuda::CUmodule mod = nullptr;
    KILN_CHECK(check(a->cuModuleLoadData(&mod, data.data()), "cuModuleLoadData"));
    modules_.push_back(mod);
    cuda::CUfunction fn = nullptr;
    KILN_CHECK(check(a->cuModuleGetFunction(&fn, mod, b.function.c_str()), "cuModuleGetFunction"));
    // Triton's load_binary: above 48 KB of shared memory the kernel must opt in to the device's
    // per-block maximum (less its static shared memory).
    if (b.shared > 49152) {
        cuda::CUdevice dev = 0;
        KILN_CHECK(check(a->cuDeviceGet(&dev, 0), "cuDeviceGet"));
        int optin = 0, static_shared = 0;
        KILN_CHECK(check(a->cuDeviceGetAttribute(&optin, cuda::kAttrMaxSharedPerBlockOptin, dev),
                         "cuDeviceGetAttribute(shared optin)"));
        if (b.shared > optin)
            // Errc::limit: the device cannot launch it, as torch finds (OutOfResources: inf).
            return make_error(Errc::limit, "the kernel needs " + std::to_string(b.shared) +
                                               " bytes of shared memory; this GPU allows " + std::to_string(optin));
        KILN_CHECK(check(a->cuFuncGetAttribute(&static_shared, cuda::kFuncAttrSharedSizeBytes, fn),
                         "cuFuncGetAttribute(shared)"));
        KILN_CHECK(check(a->cuFuncSetAttribute(fn, cuda::kFuncAttrMaxDynamicShared, optin - static_shared),
                         "cuFuncSetAttribute(max dynamic shared)"));
    }
    functions_[key] = fn;
    return fn;
}

Result<std::uint64_t> Executor::ones(const std::string& dtype, std::int64_t n) {
    std::string key = dtype + "#" + std::to_string(n);
    if (auto it = ones_.find(key); it != ones_.end()) return it->second;
    KILN_TRY(const cuda::Api* a, cuda::api());
    TensorMeta t;
    KILN_TRY(t.dtype, parse_dtype(dtype));
    t.sizes = {std::max<std::int64_t>(n, 1)};
    std::vector<std::byte> host(t.storage_bytes());
    for (std::int64_t i = 0; i < t.sizes[0]; ++i) {
        // 1.0 in each format: float32 0x3f800000, float16 0x3c00, bfloat16 0x3f80.
        if (t.dtype == DType::f32) {
            float one = 1.0f;
            std::memcpy(host.data() + i * 4, &one, 4);
        } else {
            std::uint16_t one = t.dtype == DType::f16 ? 0x3c00 : 0x3f80;
            std::memcpy(host.data() + i * 2, &one, 2);
        }
    }
    cuda::CUdeviceptr p = 0;
    KILN_CHECK(check(a->cuMemAlloc(&p, host.size()), "cuMemAlloc(ones)"));
    KILN_CHECK(check(a->cuMemcpyHtoD(p, host.data(), host.size()), "cuMemcpyHtoD(ones)"));
    ones_[key] = p;
    return p;
}

Result<cuda::CUdeviceptr> Executor::reference_on_device(CudaBench& bench, const BenchmarkRequest& req,
                                                        const std::vector<std::uint64_t>& ins) {
    const cuda::GemmCall& g = *req.reference_gemm;
    std::string key = "reference:" + cuda::to_json(g).dump() + "#" + std::to_string(req.seed);
    for (const auto& t : req.inputs) key += "|" + to_json(t).dump();
    key += "|" + to_json(req.output).dump();
    const std::size_t bytes = req.output.storage_bytes();
    bool fresh = false;
    KILN_TRY(cuda::CUdeviceptr ref, bench.keyed_buffer(key, bytes, fresh));
    if (!fresh) return ref;
    // The extern choice's output on this device, once per op: the output's random start, then the
    // cuBLAS call, exactly as the extern choice runs when it is timed.
    static const std::vector<std::byte> none;
    KILN_TRY(cuda::CUdeviceptr start, bench.output_start(req, none));
    const cuda::Api* a = bench.api();
    auto made = [&]() -> Status {
        KILN_CHECK(check(a->cuMemcpyDtoDAsync(ref, start, bytes, bench.stream()), "cuMemcpyDtoDAsync(reference)"));
        if (!cublas_) {
            KILN_TRY(cublas_, cuda::Cublas::create());
        }
        std::uint64_t one_vec = 0;
        if (g.bias_fill == "rows" || g.bias_fill == "cols") {
            KILN_TRY(one_vec, ones(g.dtype, std::max(g.bias_rows, g.bias_cols)));
        }
        std::uint64_t out = ref + static_cast<std::uint64_t>(req.output.offset) * dtype_size(req.output.dtype);
        KILN_CHECK(cublas_->run(g, ins, out, one_vec, bench.stream()));
        return check(a->cuStreamSynchronize(bench.stream()), "reference run");
    }();
    if (!made.ok()) {
        bench.forget(key);
        return Error{made.error().code, "the reference (extern) choice failed on this device: " + made.error().message,
                     made.error().context, made.error().hint};
    }
    return ref;
}

Result<std::string> Executor::check_on_device(CudaBench& bench, const BenchmarkRequest& req,
                                              const std::vector<std::uint64_t>& ins, cuda::CUdeviceptr storage) {
    KILN_TRY(cuda::CUdeviceptr ref, reference_on_device(bench, req, ins));
    const TensorMeta& t = req.output;
    TensorMeta dense = t;
    dense.strides.clear();
    const std::size_t es = dtype_size(t.dtype);
    const std::size_t bytes = t.storage_bytes();
    if (DeviceKernels::covers(t.dtype) && t.effective_strides() == dense.effective_strides()) {
        std::uint64_t n = 1;
        for (auto s : t.sizes) n *= static_cast<std::uint64_t>(s);
        std::uint64_t off = static_cast<std::uint64_t>(t.offset) * es;
        auto bad = bench.mismatches(storage + off, ref + off, n, t.dtype, req.tolerance);
        if (bad.ok() && *bad == 0) return std::string();
    }
    // Strided outputs, other dtypes, no device kernels, or elements that differ: the host's
    // comparison decides and words the report.
    KILN_TRY(auto got, bench.read_back(storage, bytes));
    KILN_TRY(auto want, bench.read_back(ref, bytes));
    std::string diff = compare_storage(t, got.data(), want.data(), req.tolerance);
    return diff.empty() ? diff : "mismatch: " + diff;
}

BenchmarkResult Executor::run_compiled(const BenchmarkRequest& req) {
    using Clock = std::chrono::steady_clock;
    auto ms_since = [](Clock::time_point t) {
        return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
    };
    auto t0 = Clock::now();
    auto& slot = cuda_[req.device_ordinal];
    if (!slot) {
        auto made = CudaBench::create(req.device_ordinal);
        if (!made.ok()) return BenchmarkResult::failure(BenchStatus::error, made.error().str());
        slot = std::move(*made);
    }
    const double context_ms = ms_since(t0);
    // The warm-up makes cuBLAS's handle (a few hundred ms with the library's loading) on a thread
    // of its own while this one sets up the device's kernels and buffers.
    std::future<Result<std::unique_ptr<cuda::Cublas>>> blas;
    auto blas_ms = std::make_shared<double>(0);
    if (req.warmup_only && req.kind == RequestKind::gemm && !cublas_)
        blas = std::async(std::launch::async, [bench = slot.get(), blas_ms]() -> Result<std::unique_ptr<cuda::Cublas>> {
            auto b0 = std::chrono::steady_clock::now();
            KILN_CHECK(bench->set_current());  // cuBLAS works on the calling thread's context
            auto made = cuda::Cublas::create();
            *blas_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b0).count();
            return made;
        });
    // Inputs made on the device cost no host time and no upload; the host makes them only when
    // the device kernels cannot (then every later request finds them uploaded, as before).
    static const std::vector<std::byte> none;
    const bool on_device = slot->seed_on_device(req);
    std::vector<const std::vector<std::byte>*> inputs;
    for (size_t i = 0; i < req.inputs.size(); ++i)
        inputs.push_back(on_device ? &none : &host_input(req.inputs[i], req.seed + i));
    const std::vector<std::byte>& out_init = on_device ? none : host_output_init(req.output, req.seed + 1000003);
    if (req.warmup_only) {
        const double kernels_ms = ms_since(t0) - context_ms;
        if (auto st = slot->prepare(req, inputs, out_init); !st.ok())
            return BenchmarkResult::failure(BenchStatus::error, st.error().str());
        BenchmarkResult r;
        r.ms = 0;
        r.details["warmup"] = true;
        r.details["device_kernels"] = on_device;
        auto& phases = r.details["phases_ms"];
        phases["context"] = context_ms;
        phases["device_kernels"] = kernels_ms;
        phases["prepare"] = ms_since(t0) - context_ms - kernels_ms;
        // cuBLAS's handle before the first extern choice or reference needs it. A failure is not
        // the warm-up's: each extern choice reports it (with the hint where to find the library).
        if (blas.valid()) {
            auto w0 = Clock::now();
            if (auto made = blas.get(); made.ok()) cublas_ = std::move(*made);
            else r.details["cublas_error"] = made.error().str();
            phases["cublas_wait"] = ms_since(w0);
            phases["cublas"] = *blas_ms;
            phases["cublas_library"] = cuda::Cublas::load_ms();  // on the preload thread, or inside "cublas"
        }
        return r;
    }
    const cuda::Api* api = slot->api();
    CudaBench::MakeLaunch make;
    auto gemm_error = std::make_shared<std::string>();  // cuBLAS's own message when a call fails
    if (req.kind == RequestKind::triton) {
        const TritonLaunch& l = req.triton;
        if (auto why = launch_unsupported(l.binary); !why.empty())
            return BenchmarkResult::failure(BenchStatus::error, why);
        make = [&, api](const std::vector<std::uint64_t>& ins, std::uint64_t out,
                        cuda::CUstream stream) -> Result<CudaBench::Launch> {
            KILN_TRY(auto fn, triton_function(l.binary));
            std::uint64_t scratch = 0;
            if (auto bytes = scratch_bytes(l.grid, l.binary.num_ctas, l.binary.global_scratch_size); bytes > 0) {
                KILN_TRY(scratch, slot->extra_buffer(bytes));
            }
            KILN_TRY(auto packed, pack_params(l.args, ins, out, scratch, 0));
            auto params = std::make_shared<PackedParams>(std::move(packed));
            // The pointers point into the storage's own buffer, which the move kept in place.
            auto grid = l.grid;
            unsigned block = 32u * static_cast<unsigned>(l.binary.num_warps);
            unsigned shared = static_cast<unsigned>(l.binary.shared);
            return CudaBench::Launch([api, fn, params, grid, block, shared, stream]() -> int {
                if (grid[0] * grid[1] * grid[2] == 0) return 0;
                return api->cuLaunchKernel(fn, static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
                                           static_cast<unsigned>(grid[2]), block, 1, 1, shared, stream,
                                           params->pointers.data(), nullptr);
            });
        };
    } else {
        const cuda::GemmCall& g = req.gemm;
        make = [&](const std::vector<std::uint64_t>& ins, std::uint64_t out,
                   cuda::CUstream stream) -> Result<CudaBench::Launch> {
            if (!cublas_) {
                KILN_TRY(cublas_, cuda::Cublas::create());
            }
            std::uint64_t one_vec = 0;
            if (g.bias_fill == "rows" || g.bias_fill == "cols") {
                KILN_TRY(one_vec, ones(g.dtype, std::max(g.bias_rows, g.bias_cols)));
            }
            cuda::Cublas* blas = cublas_.get();
            auto last_error = gemm_error;
            return CudaBench::Launch([blas, g, ins, out, one_vec, stream, last_error]() -> int {
                auto st = blas->run(g, ins, out, one_vec, stream);
                if (st.ok()) return 0;
                *last_error = st.error().str();
                return -1;
            });
        };
    }
    CudaBench::DeviceCheck device_check;
    if (req.reference_gemm)
        device_check = [&](const std::vector<std::uint64_t>& ins, std::uint64_t, cuda::CUdeviceptr storage) {
            return check_on_device(*slot, req, ins, storage);
        };
    std::span<const std::byte> output;
    auto load_next = [&] {
        int loaded = 0;
        for (const auto& b : req.prefetch_kernels) {
            if (loaded == 4) break;
            if (functions_.count(b.cubin + "#" + b.function) || !launch_unsupported(b).empty()) continue;
            (void)triton_function(b);  // a failure is left for that choice to report
            ++loaded;
        }
    };
    auto r = slot->run_launch(req, make, inputs, out_init, output, device_check, load_next);
    if (const char* vis = std::getenv("CUDA_VISIBLE_DEVICES")) r.details["cuda_visible_devices"] = vis;
    if (!r.ok()) {
        if (!gemm_error->empty()) r.reason = *gemm_error;
        return r;
    }
    auto v0 = std::chrono::steady_clock::now();
    if (!req.save_output_path.empty() || !req.reference_output_path.empty()) {
        BenchmarkResult bad = verify_output(req, output);
        if (!bad.reason.empty()) {
            bad.details = r.details;
            return bad;
        }
    }
    double compare = std::chrono::duration<double>(std::chrono::steady_clock::now() - v0).count();
    r.verify_seconds += compare;
    r.details["phases_ms"]["compare"] = compare * 1000.0;
    if (req.kind == RequestKind::gemm && cublas_) r.details["cublas"] = cublas_->path();
    return r;
}

}  // namespace kiln::worker
