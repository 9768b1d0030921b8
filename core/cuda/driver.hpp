#pragma once
// The CUDA driver API, opened once at run time with dlopen("libcuda.so.1") so that Kiln's binaries
// start on machines without a GPU driver; its absence is an Error, not a crash. Every call's status
// is checked and turned into an Error naming the call and the driver's own message. The one place
// Kiln loads libcuda: the tuner, the workers, `--version` and the GUI all ask here.
#include <cstddef>
#include <cstdint>
#include <string>

#include "util/result.hpp"

namespace kiln::cuda {

using CUdevice = int;
using CUcontext = struct CUctx_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUdeviceptr = unsigned long long;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;

struct Api {
    int (*cuInit)(unsigned);
    int (*cuDriverGetVersion)(int*);
    int (*cuDeviceGetCount)(int*);
    int (*cuDeviceGet)(CUdevice*, int);
    int (*cuDeviceGetName)(char*, int, CUdevice);
    int (*cuDeviceGetAttribute)(int*, int, CUdevice);
    int (*cuDeviceGetPCIBusId)(char*, int, CUdevice);
    int (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
    int (*cuCtxSetCurrent)(CUcontext);
    int (*cuCtxSynchronize)();
    int (*cuMemAlloc)(CUdeviceptr*, std::size_t);
    int (*cuMemFree)(CUdeviceptr);
    int (*cuMemcpyHtoD)(CUdeviceptr, const void*, std::size_t);
    int (*cuMemcpyDtoH)(void*, CUdeviceptr, std::size_t);
    int (*cuMemsetD8Async)(CUdeviceptr, unsigned char, std::size_t, CUstream);
    int (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, std::size_t, CUstream);
    int (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, std::size_t, CUstream);
    int (*cuMemAllocHost)(void**, std::size_t);  // page-locked: copies run at full PCIe/NVLink speed
    int (*cuMemFreeHost)(void*);
    int (*cuStreamCreate)(CUstream*, unsigned);
    int (*cuStreamSynchronize)(CUstream);
    int (*cuEventCreate)(CUevent*, unsigned);
    int (*cuEventRecord)(CUevent, CUstream);
    int (*cuEventSynchronize)(CUevent);
    int (*cuEventQuery)(CUevent);  // 0: done, 600 (CUDA_ERROR_NOT_READY): not yet
    int (*cuEventElapsedTime)(float*, CUevent, CUevent);
    int (*cuEventDestroy)(CUevent);
    int (*cuGetErrorString)(int, const char**);
    // Compiled kernels (Triton cubins): load, look up, size shared memory, launch.
    int (*cuModuleLoadData)(CUmodule*, const void*);
    int (*cuModuleUnload)(CUmodule);
    int (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
    int (*cuFuncGetAttribute)(int*, int, CUfunction);
    int (*cuFuncSetAttribute)(CUfunction, int, int);
    int (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                          void**, void**);
};

// The process-wide driver table (loaded once, cuInit done). Error (Errc::unavailable): no driver,
// or cuInit failed, with a hint.
Result<const Api*> api();
// Only opens libcuda and binds its symbols (no cuInit): a process about to load another large
// library on a thread calls it first, since dlopen and dlsym wait for any other thread's dlopen.
void open_driver();

// What `--version` and the GUI show; never fails. `loaded`: libcuda.so.1 opened with every symbol.
struct DriverInfo {
    bool loaded = false;
    int driver_version = 0;  // e.g. 13000 for 13.0
    int device_count = 0;
    std::string error;  // why CUDA is unavailable; empty when usable
};
DriverInfo driver_info();

// Status of one driver call: ok, or an Error "cuMemAlloc: out of memory (CUresult 2)".
Status check(int rc, const char* call);

inline constexpr int kAttrWarpSize = 10;             // CU_DEVICE_ATTRIBUTE_WARP_SIZE
inline constexpr int kAttrMultiprocessorCount = 16;  // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
inline constexpr int kAttrL2CacheSize = 38;          // CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
inline constexpr int kAttrComputeCapabilityMajor = 75;
inline constexpr int kAttrComputeCapabilityMinor = 76;
inline constexpr int kAttrMaxSharedPerBlockOptin = 97;  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
inline constexpr int kFuncAttrSharedSizeBytes = 1;      // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES (static)
inline constexpr int kFuncAttrMaxDynamicShared = 8;     // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES

struct DeviceFacts {
    int ordinal = 0;
    std::string name;
    std::string pci_bus_id;
    int l2_bytes = 0;
    int cc_major = 0, cc_minor = 0;
    int multiprocessors = 0;
    int warp_size = 0;
};
Result<int> device_count();
Result<DeviceFacts> device_facts(int ordinal);

}  // namespace kiln::cuda
