#pragma once
// Re-benchmarking Inductor's own output-code modules: `python MODULE.py` compiles the module's
// Triton kernels and prints the whole graph's time (print_performance: seconds per call);
// `python MODULE.py -k` prints one line per kernel ("<name> ... 0.012ms  0.004GB  345.67GB/s").
// This runs the module's code: callers say so to the user.
#include <string>

#include <nlohmann/json.hpp>

#include "autotune/protocol.hpp"
#include "util/result.hpp"

namespace kiln::autotune {

// The Python to use: `configured`, else python3 on PATH; Error (with what is missing) unless it
// can `import torch`. On success, the interpreter and torch's version.
struct PythonTorch {
    std::string python;
    std::string torch_version;
};
Result<PythonTorch> find_python_with_torch(const std::string& configured = {});

// Parses the module's stdout: {"graph_ms": x} or {"kernels": [{"name", "ms", "gb", "gb_per_s"}]}.
Result<nlohmann::json> parse_module_output(const std::string& out, bool per_kernel);

// Runs in the worker: the request's python, module and cache root, under its own timeout.
BenchmarkResult run_inductor_module(const BenchmarkRequest& req);

}  // namespace kiln::autotune
