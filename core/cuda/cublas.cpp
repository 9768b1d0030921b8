#include "cuda/cublas.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <mutex>
#include <sstream>

namespace fs = std::filesystem;

namespace kiln::cuda {

std::string GemmCall::describe() const {
    std::ostringstream os;
    os << api << "(" << (trans_a ? 'T' : 'N') << "," << (trans_b ? 'T' : 'N') << ", m=" << m << " n=" << n << " k=" << k
       << ", lda=" << lda << " ldb=" << ldb << " ldc=" << ldc;
    if (batch > 1) os << ", batch=" << batch << " strides " << stride_a << "/" << stride_b << "/" << stride_c;
    os << ", " << dtype << (tf32 ? " tf32" : "");
    if (bias_input >= 0) os << ", bias input " << bias_input << " by " << bias_fill << ", beta=" << beta;
    os << ")";
    return os.str();
}

nlohmann::json to_json(const GemmCall& g) {
    return {{"api", g.api},
            {"trans_a", g.trans_a},
            {"trans_b", g.trans_b},
            {"m", g.m},
            {"n", g.n},
            {"k", g.k},
            {"lda", g.lda},
            {"ldb", g.ldb},
            {"ldc", g.ldc},
            {"batch", g.batch},
            {"stride_a", g.stride_a},
            {"stride_b", g.stride_b},
            {"stride_c", g.stride_c},
            {"a_input", g.a_input},
            {"b_input", g.b_input},
            {"dtype", g.dtype},
            {"tf32", g.tf32},
            {"alpha", g.alpha},
            {"beta", g.beta},
            {"bias_input", g.bias_input},
            {"bias_fill", g.bias_fill},
            {"bias_rows", g.bias_rows},
            {"bias_cols", g.bias_cols}};
}

GemmCall gemm_call_from_json(const nlohmann::json& j) {
    GemmCall g;
    g.api = j.value("api", g.api);
    g.trans_a = j.value("trans_a", false);
    g.trans_b = j.value("trans_b", false);
    g.m = j.value("m", std::int64_t{0});
    g.n = j.value("n", std::int64_t{0});
    g.k = j.value("k", std::int64_t{0});
    g.lda = j.value("lda", std::int64_t{0});
    g.ldb = j.value("ldb", std::int64_t{0});
    g.ldc = j.value("ldc", std::int64_t{0});
    g.batch = j.value("batch", std::int64_t{1});
    g.stride_a = j.value("stride_a", std::int64_t{0});
    g.stride_b = j.value("stride_b", std::int64_t{0});
    g.stride_c = j.value("stride_c", std::int64_t{0});
    g.a_input = j.value("a_input", 1);
    g.b_input = j.value("b_input", 0);
    g.dtype = j.value("dtype", "");
    g.tf32 = j.value("tf32", false);
    g.alpha = j.value("alpha", 1.0);
    g.beta = j.value("beta", 0.0);
    g.bias_input = j.value("bias_input", -1);
    g.bias_fill = j.value("bias_fill", "");
    g.bias_rows = j.value("bias_rows", std::int64_t{0});
    g.bias_cols = j.value("bias_cols", std::int64_t{0});
    return g;
}

namespace {

using Handle = void*;
using GemmEx = int (*)(Handle, int, int, int, int, int, const void*, const void*, int, int, const void*, int, int,
                       const void*, void*, int, int, int, int);
using GemmStridedBatchedEx = int (*)(Handle, int, int, int, int, int, const void*, const void*, int, int, long long,
                                     const void*, int, int, long long, const void*, void*, int, int, long long, int,
                                     int, int);

std::vector<std::string> candidates() {
    std::vector<std::string> out;
    if (const char* env = std::getenv("KILN_CUBLAS"); env && *env) out.push_back(env);
    out.push_back("libcublas.so.13");
    out.push_back("libcublas.so.12");
    std::error_code ec;
    std::vector<fs::path> roots = {"/usr/local/cuda/lib64"};
    for (const char* venv : std::initializer_list<const char*>{std::getenv("VIRTUAL_ENV"), "/opt/torch/.venv"}) {
        if (!venv || !*venv) continue;
        for (const auto& lib : fs::directory_iterator(fs::path(venv) / "lib", ec)) {
            fs::path sp = lib.path() / "site-packages" / "nvidia";
            roots.push_back(sp / "cublas" / "lib");
            roots.push_back(sp / "cu13" / "lib");
        }
    }
    for (const auto& r : roots)
        for (const char* name : {"libcublas.so.13", "libcublas.so.12"})
            if (fs::exists(r / name, ec)) out.push_back((r / name).string());
    return out;
}

}  // namespace

struct CublasFns {
    void* lib = nullptr;
    std::string path;
    std::string error;
    int (*create)(Handle*) = nullptr;
    int (*destroy)(Handle) = nullptr;
    int (*set_stream)(Handle, CUstream) = nullptr;
    int (*set_workspace)(Handle, void*, std::size_t) = nullptr;
    int (*set_math_mode)(Handle, int) = nullptr;
    const char* (*status_string)(int) = nullptr;
    GemmEx gemm = nullptr;
    GemmStridedBatchedEx gemm_batched = nullptr;
};

static const CublasFns& load_cublas_once();

std::string find_cublas() {
    for (const auto& c : candidates()) {
        if (c.find('/') != std::string::npos) return c;
        // A bare soname: ask the loader (a lazy load, closed again).
        if (void* h = dlopen(c.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
            dlclose(h);
            return c;
        }
    }
    return {};
}

static double load_milliseconds = 0;  // written once, inside load_cublas_once's initialization

double Cublas::load_ms() { return load_cublas_once().error.empty() ? load_milliseconds : 0; }

Status Cublas::load() {
    const CublasFns& f = load_cublas_once();
    if (!f.error.empty())
        return make_error(Errc::unavailable, f.error, {},
                          "extern (cuBLAS) choices need libcublas: set KILN_CUBLAS to its path, e.g. "
                          "<venv>/lib/python3.X/site-packages/nvidia/cublas/lib/libcublas.so.12");
    return ok_status();
}

Result<std::unique_ptr<Cublas>> Cublas::create() {
    KILN_CHECK(load());
    const CublasFns& f = load_cublas_once();
    std::unique_ptr<Cublas> c(new Cublas());
    c->fns_ = &f;
    c->path_ = f.path;
    auto st = [&](int rc, const char* call) -> Status {
        if (rc == 0) return ok_status();
        return make_error(Errc::external, std::string(call) + " failed: " +
                                              (f.status_string ? f.status_string(rc) : "status " + std::to_string(rc)));
    };
    KILN_CHECK(st(f.create(&c->handle_), "cublasCreate"));
    KILN_TRY(const Api* a, api());
    // ATen's workspace on Hopper: 32 MiB (CUBLAS_WORKSPACE_CONFIG's default there).
    constexpr std::size_t kWorkspace = 32u << 20;
    KILN_CHECK(check(a->cuMemAlloc(&c->workspace_, kWorkspace), "cuMemAlloc(cuBLAS workspace)"));
    if (f.set_workspace)
        KILN_CHECK(
            st(f.set_workspace(c->handle_, reinterpret_cast<void*>(c->workspace_), kWorkspace), "cublasSetWorkspace"));
    return c;
}

Cublas::~Cublas() {
    if (handle_ && fns_) fns_->destroy(handle_);
    if (workspace_)
        if (auto a = api(); a.ok()) (*a)->cuMemFree(workspace_);
}

static const CublasFns& load_cublas_once() {
    static const CublasFns once = [] {
        auto t0 = std::chrono::steady_clock::now();
        struct Timed {
            std::chrono::steady_clock::time_point t0;
            ~Timed() {
                load_milliseconds =
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            }
        } timed{t0};
        CublasFns f;
        std::string tried;
        for (const auto& c : candidates()) {
            f.lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (f.lib) {
                f.path = c;
                break;
            }
            tried += (tried.empty() ? "" : ", ") + c;
        }
        if (!f.lib) {
            f.error = "cuBLAS not found (tried " + tried + ")";
            return f;
        }
        auto bind = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(f.lib, name));
            if (!fn && f.error.empty()) f.error = f.path + " lacks " + name;
        };
        bind(f.create, "cublasCreate_v2");
        bind(f.destroy, "cublasDestroy_v2");
        bind(f.set_stream, "cublasSetStream_v2");
        bind(f.set_math_mode, "cublasSetMathMode");
        bind(f.gemm, "cublasGemmEx");
        bind(f.gemm_batched, "cublasGemmStridedBatchedEx");
        f.set_workspace = reinterpret_cast<decltype(f.set_workspace)>(dlsym(f.lib, "cublasSetWorkspace_v2"));
        f.status_string = reinterpret_cast<decltype(f.status_string)>(dlsym(f.lib, "cublasGetStatusString"));
        return f;
    }();
    return once;
}

namespace {
constexpr int kR16F = 2, kR16BF = 14, kR32F = 0;
constexpr int kCompute32F = 68, kCompute32FFastTF32 = 77;
constexpr int kDefaultTensorOp = 99;
constexpr int kDefaultMath = 0, kTF32Math = 3;

int data_type(const std::string& d) {
    if (d == "float16") return kR16F;
    if (d == "bfloat16") return kR16BF;
    return kR32F;
}
std::size_t elem_size(const std::string& d) { return d == "float32" ? 4 : 2; }
}  // namespace

Status Cublas::run(const GemmCall& g, const std::vector<std::uint64_t>& tensors, std::uint64_t out, std::uint64_t ones,
                   CUstream stream) {
    const CublasFns& f = *fns_;
    auto st = [&](int rc, const char* call) -> Status {
        if (rc == 0) return ok_status();
        return make_error(Errc::external, std::string(call) + " failed: " +
                                              (f.status_string ? f.status_string(rc) : "status " + std::to_string(rc)));
    };
    if (stream != bound_stream_) {
        KILN_CHECK(st(f.set_stream(handle_, stream), "cublasSetStream"));
        bound_stream_ = stream;
    }
    KILN_CHECK(st(f.set_math_mode(handle_, g.tf32 ? kTF32Math : kDefaultMath), "cublasSetMathMode"));
    auto input = [&](int i) -> Result<const void*> {
        if (i < 0 || static_cast<std::size_t>(i) >= tensors.size())
            return make_error(Errc::invalid_argument, "GEMM input " + std::to_string(i) + " out of range");
        return reinterpret_cast<const void*>(tensors[static_cast<std::size_t>(i)]);
    };
    const int dt = data_type(g.dtype);
    const int compute = g.dtype == "float32" && g.tf32 ? kCompute32FFastTF32 : kCompute32F;
    const float one = 1.0f, zero = 0.0f;
    float alpha = static_cast<float>(g.alpha), beta = static_cast<float>(g.beta);
    void* c = reinterpret_cast<void*>(out);
    if (g.bias_input >= 0) {
        KILN_TRY(const void* bias, input(g.bias_input));
        if (g.bias_fill == "copy") {
            KILN_TRY(const Api* a, api());
            std::size_t bytes = static_cast<std::size_t>(g.batch * g.bias_rows * g.bias_cols) * elem_size(g.dtype);
            KILN_CHECK(check(a->cuMemcpyDtoDAsync(out, reinterpret_cast<CUdeviceptr>(bias), bytes, stream),
                             "cuMemcpyDtoDAsync(bias)"));
        } else if (g.bias_fill == "rows" || g.bias_fill == "cols") {
            // Column-major C^T (N x M): rows = bias(N x 1) @ ones(1 x M); cols = ones(N x 1) @ bias(1 x M).
            const void* left = g.bias_fill == "rows" ? bias : reinterpret_cast<const void*>(ones);
            const void* right = g.bias_fill == "rows" ? reinterpret_cast<const void*>(ones) : bias;
            auto n_out = static_cast<int>(g.bias_cols), m_out = static_cast<int>(g.bias_rows);
            KILN_CHECK(st(f.gemm(handle_, 0, 0, n_out, m_out, 1, &one, left, dt, n_out, right, dt, 1, &zero, c, dt,
                                 static_cast<int>(g.ldc), kCompute32F, kDefaultTensorOp),
                          "cublasGemmEx(bias fill)"));
        } else {
            return make_error(Errc::invalid_argument, "unknown bias fill '" + g.bias_fill + "'");
        }
    }
    KILN_TRY(const void* A, input(g.a_input));
    KILN_TRY(const void* B, input(g.b_input));
    const int ta = g.trans_a ? 1 : 0, tb = g.trans_b ? 1 : 0;
    if (g.api == "cublasGemmStridedBatchedEx")
        return st(f.gemm_batched(handle_, ta, tb, static_cast<int>(g.m), static_cast<int>(g.n), static_cast<int>(g.k),
                                 &alpha, A, dt, static_cast<int>(g.lda), g.stride_a, B, dt, static_cast<int>(g.ldb),
                                 g.stride_b, &beta, c, dt, static_cast<int>(g.ldc), g.stride_c,
                                 static_cast<int>(g.batch), compute, kDefaultTensorOp),
                  "cublasGemmStridedBatchedEx");
    return st(f.gemm(handle_, ta, tb, static_cast<int>(g.m), static_cast<int>(g.n), static_cast<int>(g.k), &alpha, A,
                     dt, static_cast<int>(g.lda), B, dt, static_cast<int>(g.ldb), &beta, c, dt, static_cast<int>(g.ldc),
                     compute, kDefaultTensorOp),
              "cublasGemmEx");
}

}  // namespace kiln::cuda
