#pragma once
// The phases of a compile: torch's chromium_event span names (dynamo_timed) grouped into what a
// performance engineer asks about. A span's self time (its duration minus its children's) goes to
// one phase, so nested spans are never counted twice. A name Kiln does not know (a newer torch)
// stays a phase of its own, "other: <name>", never dropped.
#include <string>
#include <string_view>

namespace kiln::startup {

// "Triton compile" for "async_compile.precompile", "other: foo" for an unknown "foo".
std::string phase_of_span(std::string_view span_name);
// Whether the phase is one of Kiln's named groups (false for "other: ...").
bool is_known_phase(std::string_view phase);

// A compile_file span that preprocessed torch's C++ prefix header, not a library's compile:
// compile_spans tells it by its place (just before the graph's first async_compile.wait).
inline constexpr const char* kPrefixHeaderPhase = "C++ prefix header";

// The phase names, for tests and the GUI's legend (in the table's order).
inline constexpr const char* kPhaseNames[] = {
    "dynamo tracing",
    "guard building",
    "garbage collection",
    "PGO profile",
    "FX graph passes",
    "AOTAutograd",
    "cache lookup and load",
    "Inductor lowering and codegen",
    "loading the compiled module",
    "kernel compile wait",
    "Triton compile",
    "C++ compile",
    "C++ prefix header",
    "autotuning: GEMM templates",
    "autotuning: fusion benchmarks",
    "autotuning: Triton configs",
    "coordinate descent tuning",
    "cudagraph recording",
};

}  // namespace kiln::startup
