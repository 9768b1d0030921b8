// Measures how the CUDA driver's start-up cost (cuInit, a context with its buffers) grows when
// several processes or threads start GPUs at once: the fixed cost of a multi-GPU re-tune.
// Build: g++ -O2 -std=c++20 init_probe.cpp -o init_probe -ldl -lpthread
// Run:   init_probe procs N | procs_all N | threads N | serial N | hold N |
//        procs_loop N | procs_stagger N | procs_seq N
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUdeviceptr = unsigned long long;
static CUresult (*cuInit_)(unsigned);
static CUresult (*cuDeviceGet_)(CUdevice*, int);
static CUresult (*cuRetain_)(CUcontext*, CUdevice);
static CUresult (*cuSetCurrent_)(CUcontext);
static CUresult (*cuMemAlloc_)(CUdeviceptr*, size_t);
static CUresult (*cuMemsetD8_)(CUdeviceptr, unsigned char, size_t);
static CUresult (*cuSync_)();
static CUresult (*cuEventCreate_)(void**, unsigned);
static CUresult (*cuEventRecord_)(void*, void*);
static CUresult (*cuEventSynchronize_)(void*);
static CUresult (*cuEventElapsedTime_)(float*, void*, void*);

static double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static void load() {
    void* h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) {
        std::fprintf(stderr, "no libcuda\n");
        std::exit(2);
    }
    cuInit_ = (decltype(cuInit_))dlsym(h, "cuInit");
    cuDeviceGet_ = (decltype(cuDeviceGet_))dlsym(h, "cuDeviceGet");
    cuRetain_ = (decltype(cuRetain_))dlsym(h, "cuDevicePrimaryCtxRetain");
    cuSetCurrent_ = (decltype(cuSetCurrent_))dlsym(h, "cuCtxSetCurrent");
    cuMemAlloc_ = (decltype(cuMemAlloc_))dlsym(h, "cuMemAlloc_v2");
    cuMemsetD8_ = (decltype(cuMemsetD8_))dlsym(h, "cuMemsetD8_v2");
    cuSync_ = (decltype(cuSync_))dlsym(h, "cuCtxSynchronize");
    cuEventCreate_ = (decltype(cuEventCreate_))dlsym(h, "cuEventCreate");
    cuEventRecord_ = (decltype(cuEventRecord_))dlsym(h, "cuEventRecord");
    cuEventSynchronize_ = (decltype(cuEventSynchronize_))dlsym(h, "cuEventSynchronize");
    cuEventElapsedTime_ = (decltype(cuEventElapsedTime_))dlsym(h, "cuEventElapsedTime");
}
static void ctx(int dev, double t0, const char* who) {
    double a = now_s();
    CUdevice d;
    CUcontext c;
    CUdeviceptr p;
    if (cuDeviceGet_(&d, dev) || cuRetain_(&c, d) || cuSetCurrent_(c)) {
        std::printf("%s ctx failed\n", who);
        return;
    }
    double b = now_s();
    if (cuMemAlloc_(&p, 256u << 20) || cuMemsetD8_(p, 0, 256u << 20) || cuSync_()) {
        std::printf("%s mem failed\n", who);
        return;
    }
    double e = now_s();
    std::printf("  %s dev %d: ctx %.0f ms, 256MB %.0f ms, done at %.3f s\n", who, dev, (b - a) * 1e3, (e - b) * 1e3,
                e - t0);
}
int main(int argc, char** argv) {
    if (argc < 3) return 2;
    std::string mode = argv[1];
    int n = std::atoi(argv[2]);
    if (mode == "child") {  // child DEV T0
        double t0 = std::atof(argv[3]);
        load();
        double a = now_s();
        cuInit_(0);
        double b = now_s();
        char who[64];
        int fd = argc > 4 ? std::atoi(argv[4]) : -1;
        if (fd >= 0) (void)!write(fd, "u", 1);
        std::snprintf(who, sizeof who, "pid %d cuInit %.0f ms (done %.3f s)", getpid(), (b - a) * 1e3, b - t0);
        ctx(n, t0, who);
        if (fd >= 0) {
            (void)!write(fd, "r", 1);
            // Device work while the other processes attach: does their start disturb a timing?
            CUdeviceptr p;
            void *e0, *e1;
            cuMemAlloc_(&p, 1u << 30);
            cuEventCreate_(&e0, 0);
            cuEventCreate_(&e1, 0);
            std::vector<float> early, late;
            while (now_s() - t0 < 3.5) {
                cuEventRecord_(e0, nullptr);
                for (int k = 0; k < 10; ++k) cuMemsetD8_(p, 1, 1u << 30);
                cuEventRecord_(e1, nullptr);
                cuEventSynchronize_(e1);
                float ms = 0;
                cuEventElapsedTime_(&ms, e0, e1);
                double t = now_s() - t0;
                (t < 1.8 ? early : t > 2.2 ? late : early).push_back(ms);
            }
            auto med = [](std::vector<float> v) {
                if (v.empty()) return 0.f;
                std::sort(v.begin(), v.end());
                return v[v.size() / 2];
            };
            auto mx = [](const std::vector<float>& v) {
                return v.empty() ? 0.f : *std::max_element(v.begin(), v.end());
            };
            std::printf(
                "  pid %d device loop: before 1.8 s n=%zu med %.3f max %.3f ms; after 2.2 s n=%zu med %.3f max %.3f "
                "ms\n",
                getpid(), early.size(), med(early), mx(early), late.size(), med(late), mx(late));
        }
        return 0;
    }
    double t0 = now_s();
    if (mode == "procs_seq" || mode == "procs_stagger" || mode == "procs_loop") {
        // Each child gets its GPU alone; the next starts when this one is up (stagger), ready (seq),
        // or at once (loop: all together, as the pool does today).
        const char next_on = mode == "procs_seq" ? 'r' : mode == "procs_stagger" ? 'u' : 0;
        std::vector<pid_t> kids;
        std::vector<int> fds;
        for (int i = 0; i < n; ++i) {
            int pfd[2];
            if (pipe(pfd) != 0) return 4;
            pid_t k = fork();
            if (k == 0) {
                close(pfd[0]);
                setenv("CUDA_VISIBLE_DEVICES", std::to_string(i).c_str(), 1);
                std::string ts = std::to_string(t0);
                std::string fd = std::to_string(pfd[1]);
                execl("/proc/self/exe", argv[0], "child", "0", ts.c_str(), fd.c_str(), (char*)nullptr);
                _exit(3);
            }
            close(pfd[1]);
            kids.push_back(k);
            fds.push_back(pfd[0]);
            if (next_on) {
                char c = 0;
                while (read(pfd[0], &c, 1) == 1 && c != next_on) {}
            }
        }
        for (auto k : kids) waitpid(k, nullptr, 0);
        std::printf("%s %d: all done at %.3f s\n", mode.c_str(), n, now_s() - t0);
        return 0;
    }
    if (mode == "procs" || mode == "procs_all") {
        std::vector<pid_t> kids;
        for (int i = 0; i < n; ++i) {
            pid_t k = fork();
            if (k == 0) {
                std::string dev = std::to_string(i);
                std::string ts = std::to_string(t0);
                if (mode == "procs") {
                    setenv("CUDA_VISIBLE_DEVICES", dev.c_str(), 1);
                    dev = "0";
                }
                execl("/proc/self/exe", argv[0], "child", dev.c_str(), ts.c_str(), (char*)nullptr);
                _exit(3);
            }
            kids.push_back(k);
        }
        for (auto k : kids) waitpid(k, nullptr, 0);
    } else {
        load();
        double a = now_s();
        cuInit_(0);
        std::printf("  one process cuInit %.0f ms\n", (now_s() - a) * 1e3);
        if (mode == "hold") {  // keeps every GPU's driver state alive, as a persistence daemon would
            for (int i = 0; i < n; ++i) ctx(i, t0, "hold");
            std::fflush(stdout);
            sleep(60);
            return 0;
        }
        if (mode == "threads") {
            std::vector<std::thread> ts;
            for (int i = 0; i < n; ++i) ts.emplace_back([=] { ctx(i, t0, "thread"); });
            for (auto& t : ts) t.join();
        } else {
            for (int i = 0; i < n; ++i) ctx(i, t0, "serial");
        }
    }
    std::printf("%s %d: all done at %.3f s\n", mode.c_str(), n, now_s() - t0);
    return 0;
}
