#pragma once
// Run-time detection of CUDA: the driver library is opened with dlopen, so Kiln's binaries start
// on machines without a GPU driver. The toolkit (nvcc) is located like Inductor does.
#include <optional>
#include <string>

namespace kiln {

struct CudaDriverInfo {
    bool loaded = false;
    int driver_version = 0;  // e.g. 13000 for 13.0
    int device_count = 0;
    std::string error;       // why it is unavailable
};

CudaDriverInfo probe_cuda_driver();

// nvcc: $CUDACXX, $CUDA_HOME/bin/nvcc, /usr/local/cuda/bin/nvcc, then PATH. Empty if absent.
std::string find_nvcc(const std::string& configured = {});
// "release 13.0, V13.0.88" from `nvcc --version`, or empty.
std::string nvcc_version(const std::string& nvcc);

// One line: "driver 13.0 (1 device) | toolkit 13.0 (/usr/local/cuda/bin/nvcc)" or reasons.
std::string cuda_version_summary();

}  // namespace kiln
