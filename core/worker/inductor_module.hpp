#pragma once
// Re-benchmarking Inductor's own output-code modules: `python MODULE.py` compiles the module's
// Triton kernels and prints the whole graph's time (print_performance: seconds per call);
// `python MODULE.py -k` prints one line per kernel, for modules compiled with benchmark_kernel:
// "<bench name> <CAT> <key[:10]> 0.007ms  0.006 GB  928.00GB/s  31 regs  0 spills  32 shared mem".
// This runs the module's code: callers say so to the user.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "util/result.hpp"
#include "worker/protocol.hpp"

namespace kiln::worker {

// The Python to use: `configured`, else python3 on PATH; Error (with what is missing) unless it
// can `import torch`. On success, the interpreter and torch's version.
struct PythonTorch {
    std::string python;
    std::string torch_version;
};
Result<PythonTorch> find_python_with_torch(const std::string& configured = {});

// Parses the module's stdout: {"graph_ms": x} or {"kernels": [{"name", "key", "category", "ms",
// "gb", "gb_per_s", and where printed "regs", "spills", "shared_bytes"}]}; "name" is the key
// until name_kernels finds the kernel's module.
Result<nlohmann::json> parse_module_output(const std::string& out, bool per_kernel);

// Replaces each kernel's "name" with its Triton kernel name (inductor_meta's kernel_name) and adds
// "module", from the kernel modules under `cache_root`; kernels not found keep their key.
void name_kernels(nlohmann::json& parsed, const std::filesystem::path& cache_root);

// Runs in the worker: the request's python, module and cache root, under its own timeout.
BenchmarkResult run_inductor_module(const BenchmarkRequest& req);

}  // namespace kiln::worker
