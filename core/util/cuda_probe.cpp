#include "util/cuda_probe.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace kiln {

CudaDriverInfo probe_cuda_driver() {
    CudaDriverInfo info;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        info.error = "no CUDA driver (libcuda.so.1 not found)";
        return info;
    }
    using InitFn = int (*)(unsigned);
    using VersionFn = int (*)(int*);
    using CountFn = int (*)(int*);
    auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
    auto version = reinterpret_cast<VersionFn>(dlsym(lib, "cuDriverGetVersion"));
    auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
    if (!init || !version || !count) {
        info.error = "libcuda.so.1 lacks cuInit/cuDriverGetVersion";
        return info;  // keep the library loaded: unloading a driver is not worth the risk
    }
    info.loaded = true;
    version(&info.driver_version);
    int rc = init(0);
    if (rc != 0) {
        info.error = "cuInit failed with CUresult " + std::to_string(rc);
        return info;
    }
    count(&info.device_count);
    using GetFn = int (*)(int*, int);
    using NameFn = int (*)(char*, int, int);
    using AttrFn = int (*)(int*, int, int);
    auto get = reinterpret_cast<GetFn>(dlsym(lib, "cuDeviceGet"));
    auto name = reinterpret_cast<NameFn>(dlsym(lib, "cuDeviceGetName"));
    auto attr = reinterpret_cast<AttrFn>(dlsym(lib, "cuDeviceGetAttribute"));
    if (!get || !name || !attr) return info;
    // CUdevice_attribute: WARP_SIZE 10, MULTIPROCESSOR_COUNT 16, COMPUTE_CAPABILITY_MAJOR 75 / MINOR 76.
    for (int i = 0; i < info.device_count && i < 256; ++i) {
        int dev = 0;
        if (get(&dev, i) != 0) continue;
        CudaDeviceInfo d;
        char buf[256] = {};
        if (name(buf, sizeof buf - 1, dev) == 0) d.name = buf;
        attr(&d.warp_size, 10, dev);
        attr(&d.multiprocessors, 16, dev);
        attr(&d.cc_major, 75, dev);
        attr(&d.cc_minor, 76, dev);
        info.devices.push_back(std::move(d));
    }
    return info;
}

static bool is_executable(const std::filesystem::path& p) {
    return !p.empty() && ::access(p.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(p);
}

std::string find_nvcc(const std::string& configured) {
    if (is_executable(configured)) return configured;
    if (const char* c = std::getenv("CUDACXX"); c && is_executable(c)) return c;
    if (const char* h = std::getenv("CUDA_HOME"); h && is_executable(std::filesystem::path(h) / "bin/nvcc"))
        return (std::filesystem::path(h) / "bin/nvcc").string();
    if (is_executable("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
    if (const char* path = std::getenv("PATH")) {
        std::stringstream ss(path);
        std::string dir;
        while (std::getline(ss, dir, ':'))
            if (is_executable(std::filesystem::path(dir) / "nvcc")) return (std::filesystem::path(dir) / "nvcc").string();
    }
    return {};
}

std::string nvcc_version(const std::string& nvcc) {
    if (nvcc.empty()) return {};
    std::string cmd = "'" + nvcc + "' --version 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return {};
    std::array<char, 512> buf{};
    std::string line, found;
    while (fgets(buf.data(), buf.size(), p)) {
        line = buf.data();
        if (auto pos = line.find("release "); pos != std::string::npos) {
            found = line.substr(pos);
            while (!found.empty() && (found.back() == '\n' || found.back() == '\r')) found.pop_back();
        }
    }
    pclose(p);
    return found;
}

std::string cuda_version_summary() {
    std::string s;
    CudaDriverInfo d = probe_cuda_driver();
    if (d.loaded) {
        s += "driver " + std::to_string(d.driver_version / 1000) + "." + std::to_string((d.driver_version % 1000) / 10);
        s += d.error.empty() ? " (" + std::to_string(d.device_count) + " device" + (d.device_count == 1 ? "" : "s") + ")"
                             : " (" + d.error + ")";
    } else {
        s += d.error;
    }
    std::string nvcc = find_nvcc();
    s += " | toolkit ";
    if (nvcc.empty()) s += "not found";
    else {
        std::string v = nvcc_version(nvcc);
        s += (v.empty() ? "unknown version" : v) + " (" + nvcc + ")";
    }
    return s;
}

}  // namespace kiln
