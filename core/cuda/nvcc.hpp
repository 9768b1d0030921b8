#pragma once
// The CUDA toolkit, located like Inductor does, and the one-line CUDA summary of `--version`.
#include <string>

namespace kiln::cuda {

// nvcc: `configured`, $CUDACXX, $CUDA_HOME/bin/nvcc, /usr/local/cuda/bin/nvcc, then PATH. Empty if absent.
std::string find_nvcc(const std::string& configured = {});
// "release 13.0, V13.0.88" from `nvcc --version`, or empty.
std::string nvcc_version(const std::string& nvcc);

// One line: "driver 13.0 (1 device) | toolkit release 13.0, V13.0.88 (/usr/local/cuda/bin/nvcc)" or reasons.
std::string cuda_version_summary();

}  // namespace kiln::cuda
