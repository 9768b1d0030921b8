#include "startup/phase_names.hpp"

#include <array>

namespace kiln::startup {

namespace {

// A pattern is a name, "prefix*", "*suffix" or "*infix*"; the first phase with a matching pattern wins.
// tests/app/cli/startup_phases.py holds the same table (the test that checks Kiln against the trace).
struct PhaseRule {
    const char* phase;
    std::array<const char*, 8> patterns;
};

constexpr PhaseRule kRules[] = {
    {"dynamo tracing", {"bytecode_tracing", "compile_attempt_*", "insert_deferred_runtime_asserts", "dynamo"}},
    {"guard building", {"build_guards"}},
    {"garbage collection", {"gc"}},
    {"PGO profile", {"pgo.*"}},
    {"FX graph passes",
     {"_recursive_pre_grad_passes", "_recursive_post_grad_passes", "_recursive_joint_graph_passes", "pass.*"}},
    {"AOTAutograd",
     {"backend_compile", "create_aot_dispatcher_function", "aot_*", "min_cut_rematerialization_partition",
      "compile_fx.<locals>.*"}},
    {"cache lookup and load",
     {"inductor_compile", "inductor_codecache_torch_key", "AOTAutogradCache.*", "TritonBundler.*"}},
    {"Inductor lowering and codegen",
     {"fx_codegen_and_compile", "additional_fake_tensor_prop", "GraphLowering.*", "code_gen", "Scheduler.*",
      "PythonWrapperCodegen.*", "generate_kernel_code_from_nodes"}},
    {"loading the compiled module", {"PyCodeCache.load_by_key_path", "StaticAutotunerFuture.*"}},
    {"kernel compile wait", {"async_compile.wait"}},
    {"Triton compile",
     {"async_compile.precompile", "CachingAutotuner.slow_precompile_config", "reload_kernel_in_parent"}},
    {"C++ compile", {"compile_file"}},
    {"autotuning: GEMM templates", {"*_template_precompiling", "*_template_autotuning", "select_algorithm*"}},
    {"autotuning: fusion benchmarks", {"benchmark_fused_nodes", "benchmark_codegened_module"}},
    {"autotuning: Triton configs", {"CachingAutotuner.benchmark_all_configs"}},
    {"coordinate descent tuning", {"CachingAutotuner.coordinate_descent_tuning"}},
    {"cudagraph recording", {"*cudagraph*", "*CUDAGraph*"}},
};

bool matches(std::string_view pattern, std::string_view name) {
    const bool lead = !pattern.empty() && pattern.front() == '*';
    const bool trail = pattern.size() > 1 && pattern.back() == '*';
    if (lead && trail) return name.find(pattern.substr(1, pattern.size() - 2)) != std::string_view::npos;
    if (lead) {
        auto s = pattern.substr(1);
        return name.size() >= s.size() && name.substr(name.size() - s.size()) == s;
    }
    if (trail) return name.substr(0, pattern.size() - 1) == pattern.substr(0, pattern.size() - 1);
    return name == pattern;
}

}  // namespace

std::string phase_of_span(std::string_view span_name) {
    for (const auto& rule : kRules)
        for (const char* p : rule.patterns)
            if (p && matches(p, span_name)) return rule.phase;
    return "other: " + std::string(span_name);
}

bool is_known_phase(std::string_view phase) { return phase.substr(0, 7) != "other: "; }

}  // namespace kiln::startup
