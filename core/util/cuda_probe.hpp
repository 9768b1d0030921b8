#pragma once
// Run-time detection of CUDA: the driver library is opened with dlopen, so Kiln's binaries start
// on machines without a GPU driver. The toolkit (nvcc) is located like Inductor does.
#include <optional>
#include <string>
#include <vector>

namespace kiln {

struct CudaDeviceInfo {
    std::string name;              // cuDeviceGetName: the same string as torch's props.name
    int cc_major = 0, cc_minor = 0;
    int multiprocessors = 0;
    int warp_size = 0;
};

struct CudaDriverInfo {
    bool loaded = false;
    int driver_version = 0;  // e.g. 13000 for 13.0
    int device_count = 0;
    std::string error;       // why it is unavailable
    std::vector<CudaDeviceInfo> devices;  // in driver order (CUDA_VISIBLE_DEVICES applied)
};

CudaDriverInfo probe_cuda_driver();

// nvcc: $CUDACXX, $CUDA_HOME/bin/nvcc, /usr/local/cuda/bin/nvcc, then PATH. Empty if absent.
std::string find_nvcc(const std::string& configured = {});
// "release 13.0, V13.0.88" from `nvcc --version`, or empty.
std::string nvcc_version(const std::string& nvcc);

// One line: "driver 13.0 (1 device) | toolkit 13.0 (/usr/local/cuda/bin/nvcc)" or reasons.
std::string cuda_version_summary();

}  // namespace kiln
