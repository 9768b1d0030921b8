#include "cuda/driver.hpp"

#include <dlfcn.h>

#include <mutex>

namespace kiln::cuda {
namespace {

struct Loaded {
    Api api{};
    bool library = false;  // dlopen and every symbol succeeded (cuInit may still have failed)
    std::string error;
};

template <class F>
bool bind(void* lib, F& fn, const char* name, std::string& error) {
    fn = reinterpret_cast<F>(dlsym(lib, name));
    if (!fn && error.empty()) error = std::string("libcuda.so.1 lacks ") + name;
    return fn != nullptr;
}

// The library and its symbols, without cuInit.
Loaded open_library() {
    Loaded l;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        l.error = "no CUDA driver: libcuda.so.1 cannot be loaded";
        return l;
    }
    Api& a = l.api;
    std::string& e = l.error;
    bind(lib, a.cuInit, "cuInit", e);
    bind(lib, a.cuDriverGetVersion, "cuDriverGetVersion", e);
    bind(lib, a.cuDeviceGetCount, "cuDeviceGetCount", e);
    bind(lib, a.cuDeviceGet, "cuDeviceGet", e);
    bind(lib, a.cuDeviceGetName, "cuDeviceGetName", e);
    bind(lib, a.cuDeviceGetAttribute, "cuDeviceGetAttribute", e);
    bind(lib, a.cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", e);
    bind(lib, a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", e);
    bind(lib, a.cuCtxSetCurrent, "cuCtxSetCurrent", e);
    bind(lib, a.cuCtxSynchronize, "cuCtxSynchronize", e);
    bind(lib, a.cuMemAlloc, "cuMemAlloc_v2", e);
    bind(lib, a.cuMemFree, "cuMemFree_v2", e);
    bind(lib, a.cuMemcpyHtoD, "cuMemcpyHtoD_v2", e);
    bind(lib, a.cuMemcpyDtoH, "cuMemcpyDtoH_v2", e);
    bind(lib, a.cuMemsetD8Async, "cuMemsetD8Async", e);
    bind(lib, a.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", e);
    bind(lib, a.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", e);
    bind(lib, a.cuMemAllocHost, "cuMemAllocHost_v2", e);
    bind(lib, a.cuMemFreeHost, "cuMemFreeHost", e);
    bind(lib, a.cuStreamCreate, "cuStreamCreate", e);
    bind(lib, a.cuStreamSynchronize, "cuStreamSynchronize", e);
    bind(lib, a.cuEventCreate, "cuEventCreate", e);
    bind(lib, a.cuEventRecord, "cuEventRecord", e);
    bind(lib, a.cuEventSynchronize, "cuEventSynchronize", e);
    bind(lib, a.cuEventQuery, "cuEventQuery", e);
    bind(lib, a.cuEventElapsedTime, "cuEventElapsedTime", e);
    bind(lib, a.cuEventDestroy, "cuEventDestroy_v2", e);
    bind(lib, a.cuGetErrorString, "cuGetErrorString", e);
    bind(lib, a.cuModuleLoadData, "cuModuleLoadData", e);
    bind(lib, a.cuModuleUnload, "cuModuleUnload", e);
    bind(lib, a.cuModuleGetFunction, "cuModuleGetFunction", e);
    bind(lib, a.cuFuncGetAttribute, "cuFuncGetAttribute", e);
    bind(lib, a.cuFuncSetAttribute, "cuFuncSetAttribute", e);
    bind(lib, a.cuLaunchKernel, "cuLaunchKernel", e);
    if (!e.empty()) return l;
    l.library = true;
    return l;
}

const Loaded& opened() {
    static const Loaded once = open_library();
    return once;
}

Loaded load() {
    Loaded l = opened();
    if (!l.library) return l;
    Api& a = l.api;
    std::string& e = l.error;
    int rc = a.cuInit(0);
    if (rc != 0) {
        const char* msg = nullptr;
        a.cuGetErrorString(rc, &msg);
        e = std::string("cuInit failed: ") + (msg ? msg : "unknown error") + " (CUresult " + std::to_string(rc) + ")";
    }
    return l;
}

const Loaded& loaded() {
    static const Loaded once = load();
    return once;
}

}  // namespace

void open_driver() { (void)opened(); }

Result<const Api*> api() {
    const Loaded& l = loaded();
    if (!l.error.empty())
        return make_error(Errc::unavailable, l.error, {},
                          "CUDA choices need an NVIDIA driver; use --devices cpu for CPU kernels");
    return &l.api;
}

DriverInfo driver_info() {
    const Loaded& l = loaded();
    DriverInfo info;
    info.loaded = l.library;
    info.error = l.error;
    if (l.library) l.api.cuDriverGetVersion(&info.driver_version);
    if (info.error.empty() && l.api.cuDeviceGetCount(&info.device_count) != 0) info.device_count = 0;
    return info;
}

Status check(int rc, const char* call) {
    if (rc == 0) return ok_status();
    const char* msg = nullptr;
    if (auto a = api(); a.ok()) (*a)->cuGetErrorString(rc, &msg);
    return make_error(Errc::external,
                      std::string(call) + ": " + (msg ? msg : "error") + " (CUresult " + std::to_string(rc) + ")");
}

Result<int> device_count() {
    KILN_TRY(const Api* a, api());
    int n = 0;
    KILN_CHECK(check(a->cuDeviceGetCount(&n), "cuDeviceGetCount"));
    return n;
}

Result<DeviceFacts> device_facts(int ordinal) {
    KILN_TRY(const Api* a, api());
    CUdevice dev = 0;
    KILN_CHECK(check(a->cuDeviceGet(&dev, ordinal), "cuDeviceGet"));
    DeviceFacts f;
    f.ordinal = ordinal;
    char buf[256] = {};
    KILN_CHECK(check(a->cuDeviceGetName(buf, sizeof buf, dev), "cuDeviceGetName"));
    f.name = buf;
    char bus[64] = {};
    KILN_CHECK(check(a->cuDeviceGetPCIBusId(bus, sizeof bus, dev), "cuDeviceGetPCIBusId"));
    f.pci_bus_id = bus;
    KILN_CHECK(check(a->cuDeviceGetAttribute(&f.l2_bytes, kAttrL2CacheSize, dev), "cuDeviceGetAttribute(L2)"));
    KILN_CHECK(
        check(a->cuDeviceGetAttribute(&f.cc_major, kAttrComputeCapabilityMajor, dev), "cuDeviceGetAttribute(cc)"));
    KILN_CHECK(
        check(a->cuDeviceGetAttribute(&f.cc_minor, kAttrComputeCapabilityMinor, dev), "cuDeviceGetAttribute(cc)"));
    KILN_CHECK(check(a->cuDeviceGetAttribute(&f.multiprocessors, kAttrMultiprocessorCount, dev),
                     "cuDeviceGetAttribute(SM count)"));
    KILN_CHECK(check(a->cuDeviceGetAttribute(&f.warp_size, kAttrWarpSize, dev), "cuDeviceGetAttribute(warp size)"));
    return f;
}

}  // namespace kiln::cuda
