#include "startup/causes.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "startup/phase_names.hpp"

namespace kiln::startup {

namespace {

constexpr double kNoticeable = 0.05;  // seconds: below this a phase gets its description, no claim
// Seconds per Triton precompile span that say a kernel was compiled, not loaded. On the fixtures'
// H100 a kernel compiled from source took 0.12-0.8 s a precompile (cold run) and one loaded from
// Triton's cache 5 ms (warm run): a tenth of a second per kernel sits far above any load.
constexpr double kTritonCompileEvidence = 0.1;

std::string count_text(int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

int count_spans(const CompileSpans& c, const char* name) {
    auto it = c.span_counts.find(name);
    return it == c.span_counts.end() ? 0 : it->second;
}

// compile_file spans that built a library (the prefix header's preprocess is not one).
int cpp_compiles(const CompileSpans& c) { return count_spans(c, "compile_file") - c.prefix_header_preprocesses; }

// What each phase is, whatever caused it.
std::string describe(const std::string& phase, const CompileSpans& c) {
    if (phase == "dynamo tracing")
        return "dynamo traced the frame's bytecode into an FX graph; every process does this again (no cache "
               "holds it)";
    if (phase == "guard building") return "dynamo built the guards that decide when this compiled code is reused";
    if (phase == "garbage collection") return "gc.collect() after the compile";
    if (phase == "PGO profile") return "reading or writing the automatic-dynamic (PGO) profile";
    if (phase == "FX graph passes") return "pre-, joint- and post-grad FX passes";
    if (phase == "AOTAutograd") return "functionalization, forward/backward tracing and the AOTAutograd cache";
    if (phase == "cache lookup and load") return "FX graph and AOTAutograd cache lookups and loads";
    if (phase == "Inductor lowering and codegen") return "Inductor lowered the graph and generated its kernels";
    if (phase == "loading the compiled module")
        return "importing the compiled graph's Python module (PyCodeCache.load_by_key_path) and its kernels";
    if (phase == "kernel compile wait") return "waiting for kernels compiled in the async_compile pool";
    if (phase == "Triton compile")
        return count_text(count_spans(c, "async_compile.precompile") +
                              count_spans(c, "CachingAutotuner.slow_precompile_config"),
                          "Triton precompile", "Triton precompiles") +
               (c.triton_compile_us ? " (torch: triton_compile_time_us " + std::to_string(*c.triton_compile_us) + ")"
                                    : std::string());
    if (phase == "C++ compile")
        return count_text(cpp_compiles(c), "compile_file", "compile_files") +
               ": the CPU graph's kernels and, on a process's first CPU graph, the vector-ISA probe's test libraries";
    if (phase == kPrefixHeaderPhase)
        return "torch preprocessed its C++ prefix header (g++ -E) to key the precompiled header: once per process "
               "that loads a CPU graph, libraries kept or not";
    if (phase == "autotuning: fusion benchmarks") return "Inductor benchmarked fused kernels to choose a fusion";
    if (phase == "autotuning: Triton configs") return "a Triton kernel's configs benchmarked (CachingAutotuner)";
    if (phase == "cudagraph recording") return "CUDA graphs recorded (cudagraph trees, once per shape)";
    if (phase.rfind("other: ", 0) == 0)
        return "a span Kiln does not name (a newer torch?): its self time as torch logged it";
    return {};
}

std::string autotune_text(const CompileSpans& c) {
    std::string s;
    for (const auto& a : c.autotunes) {
        if (!s.empty()) s += "; ";
        s += "select_algorithm autotuned " + a.op + (a.shape.empty() ? "" : " at " + a.shape);
        if (a.choices)
            s += ": " + std::to_string(a.choices) + " choices (" + std::to_string(a.triton_choices) + " Triton)";
        s += " precompiled in " + seconds_text(a.precompile_seconds);
        if (a.precompile_errors) s += " (" + std::to_string(a.precompile_errors) + " failed)";
        s += ", benchmarked in " + seconds_text(a.autotune_seconds);
        if (!a.best.empty()) s += ", best " + a.best;
    }
    return s;
}

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    std::set<std::string> seen;
    for (const auto& x : v)
        if (!x.empty() && seen.insert(x).second) s += (s.empty() ? "" : ", ") + x;
    return s;
}

// A setting the graph's cache key records ("inductor_config[cpp.vec_isa_ok]: True").
bool key_says(const CompileSpans& c, const char* setting) {
    for (const auto& e : c.events)
        for (const auto& line : e.components)
            if (line.find(setting) != std::string::npos) return true;
    return false;
}

bool any_state(const CompileSpans& c, const char* cache, const char* state) {
    return std::any_of(c.events.begin(), c.events.end(),
                       [&](const trace::CacheEvent& e) { return e.cache == cache && e.state == state; });
}

struct Assigner {
    CompileCost& cost;
    std::vector<Claim>& claims;
    std::set<std::string> claimed;

    // Gives `phase` a cause and fix and claims its seconds for `what` (once per phase). An inferred
    // claim (no span says the cause ran) carries `basis`: what it was inferred from.
    void claim(const std::string& phase, const std::string& cause, const std::string& what, const std::string& fix,
               const std::string& remedy, const std::string& basis = {}) {
        if (claimed.count(phase)) return;
        auto it =
            std::find_if(cost.phases.begin(), cost.phases.end(), [&](const PhaseCost& p) { return p.name == phase; });
        if (it == cost.phases.end() || it->seconds <= 0) return;
        claimed.insert(phase);
        it->cause = cause + (it->cause.empty() ? "" : " (" + it->cause + ")");
        it->why = cause;
        it->fix = fix;
        it->inferred = !basis.empty();
        it->basis = basis;
        if (!what.empty()) claims.push_back({what, fix, remedy, it->seconds, !basis.empty(), basis});
    }
};

}  // namespace

std::string seconds_text(double s) {
    char buf[32];
    if (s < 1) std::snprintf(buf, sizeof buf, "%.0f ms", s * 1000);
    else std::snprintf(buf, sizeof buf, s < 10 ? "%.2f s" : "%.1f s", s);
    return buf;
}

CompileCost cost_of(const CompileSpans& c, const std::optional<MissInfo>& miss, std::vector<Claim>& claims) {
    CompileCost cost;
    cost.compile_id = c.compile_id;
    cost.kind = c.kind;
    cost.function = c.function;
    cost.file = c.file;
    cost.line = c.line;
    cost.start_time = c.start_time;
    cost.seconds = c.seconds();
    cost.recompile_reason = c.recompile_reason;
    cost.gaps = c.gaps;
    if (!c.metrics_seconds && !c.metrics_dropped && c.kind == "frame")
        cost.gaps.push_back("no compilation_metrics record: seconds from the entire_frame_compile span");
    double named = 0;
    for (const auto& [name, s] : c.phases) {
        cost.phases.push_back({name, s, describe(name, c), "", "", describe(name, c)});
        named += s;
    }
    std::stable_sort(cost.phases.begin(), cost.phases.end(),
                     [](const PhaseCost& a, const PhaseCost& b) { return a.seconds > b.seconds; });
    cost.unexplained_seconds = cost.seconds - named;
    if (cost.unexplained_seconds < -1e-6) {  // torch's metrics say less than its own spans hold
        cost.gaps.push_back("its phases add up to " + seconds_text(named) + ", more than the " +
                            seconds_text(cost.seconds) + " it took (the trace's times disagree): unexplained 0");
        cost.unexplained_seconds = 0;
    }

    const bool fx_hit = any_state(c, "fx_graph", "hit"), fx_miss = any_state(c, "fx_graph", "miss"),
               fx_bypass = any_state(c, "fx_graph", "bypass");
    cost.fx_state = fx_hit && (fx_miss || fx_bypass) ? "mixed"
                    : fx_miss                        ? "miss"
                    : fx_bypass                      ? "bypass"
                    : fx_hit                         ? "hit"
                                                     : "";
    if (miss) cost.miss = miss->what;

    Assigner as{cost, claims, {}};
    const std::string frame = c.function.empty() ? std::string("this frame") : c.function;

    // A CPU graph: seconds with no span inside, around its C++ compiles. Inductor's vector-ISA probes run
    // there, but so may Python imports: no span says which took what, so the probe is inferred, never a
    // saving its remedy is known to bring. A profiler on an H200 host (torch 2.11, bench/RESULTS.md) put
    // 21 of a warm start's 22 s there with cpp.vec_isa_ok True: the setting skips the base probe only;
    // the AVX-512 bf16, VNNI, AMX and AMX-fp16 probes each still start a Python process that imports torch.
    if (c.cpu_graph()) {
        const bool probe_off = key_says(c, "inductor_config[cpp.vec_isa_ok]: True");
        for (const char* phase : {"loading the compiled module", "Inductor lowering and codegen"}) {
            if (cost.phase_seconds(phase) < 2.0) continue;
            if (probe_off) {
                as.claim(phase,
                         "inferred: no span covers these " + seconds_text(cost.phase_seconds(phase)) +
                             " of a CPU graph; with cpp.vec_isa_ok: True in the key, torch 2.11 still runs its "
                             "vector-ISA probes for AVX-512 bf16, VNNI, AMX and AMX-fp16 where the CPU lists them, "
                             "each in a fresh Python process that imports torch (seconds each, once per process), "
                             "and Python imports may hold part",
                         "", "no setting removes those probes in torch 2.11; they run once per process", "",
                         "no span covers these seconds; a profiler of such a warm start (H200 host) put 21 of its 22 s "
                         "in those probes");
                continue;
            }
            as.claim(phase,
                     "inferred: no span covers these " + seconds_text(cost.phase_seconds(phase)) +
                         " of a CPU graph; Inductor's C++ vector-ISA probe runs here (cpu_vec_isa builds a test "
                         "library per ISA the CPU lists and loads it in a fresh Python process that imports torch: "
                         "seconds each, once per process, even when the graph hits), and so may Python imports",
                     "the C++ vector-ISA probe of a CPU graph, inferred",
                     "TORCHINDUCTOR_VEC_ISA_OK=1 skips the base probe (trust the CPU's flags; the AVX-512 bf16, "
                     "VNNI and AMX probes still run), or compile the CPU graphs in a process that already probed; "
                     "an A/B run with it says how many of these seconds go",
                     "TORCHINDUCTOR_VEC_ISA_OK=1",
                     "no span covers these seconds; the vector-ISA probes and Python imports may each hold part of "
                     "them, and only an A/B run with TORCHINDUCTOR_VEC_ISA_OK=1 measures the probe's share");
        }
    }
    // Autotuning: select_algorithm only benchmarks what this device's timing cache cannot answer.
    if (!c.autotunes.empty()) {
        as.claim("autotuning: GEMM templates",
                 autotune_text(c) + "; this device's timing cache (cache/<system hash>) had no timings for it",
                 "GEMM autotuning this device's timing cache lacked",
                 "kiln-cli retune --write fills this GPU's timing cache from the cache's own choices; an FX graph hit "
                 "skips the autotuning altogether",
                 "kiln-cli retune --write");
    }
    if (!c.coordesc_kernels.empty()) {
        as.claim("coordinate descent tuning",
                 "coordinate descent tuning re-ran for " + joined(c.coordesc_kernels) +
                     ": its .best_config was missing or did not match (found_by_coordesc)",
                 "coordinate descent re-run",
                 "keep the kernels' .best_config files with the cache (same Triton, config and source), or "
                 "turn coordinate_descent_tuning off where its gain is small",
                 "the .best_config files kept");
    }
    // A recompile: what an FX graph hit would have skipped.
    if (miss) {
        for (const char* phase : {"Inductor lowering and codegen", "kernel compile wait", "Triton compile",
                                  "C++ compile", "autotuning: GEMM templates", "autotuning: fusion benchmarks",
                                  "autotuning: Triton configs", "coordinate descent tuning", "cudagraph recording"})
            as.claim(phase, miss->what, miss->avoid, miss->fix, miss->remedy);
    } else if (fx_hit) {
        // Triton precompiles although the graph hit. Loading a kernel from Triton's cache runs the same
        // spans, so only their length says a kernel was compiled: well above a load per kernel, the
        // Triton cache lacked them; below it, or with no precompile to divide by, that is inferred.
        const int n =
            count_spans(c, "async_compile.precompile") + count_spans(c, "CachingAutotuner.slow_precompile_config");
        const double triton = cost.phase_seconds("Triton compile");
        // Time alone is no evidence under the static launcher: an A/B run on an H100 (torch 2.11,
        // bench/gpu/startup_ab.sh) took 0.1-0.26 s per precompile with and without the Triton cache,
        // and removing the cache cost 0.03 s of 0.9 s.
        // torch's static CUDA launcher (on by default in 2.11) keeps each kernel's cubin with the FX entry:
        // a hit loads its kernels from there and never reads the Triton cache.
        const bool static_launcher = key_says(c, "inductor_config[use_static_cuda_launcher]: True");
        const bool compiled = !static_launcher && n > 0 && triton / n >= kTritonCompileEvidence;
        const std::string per = n > 0 ? " (" + seconds_text(triton / n) + " each)" : std::string();
        for (const char* phase : {"Triton compile", "kernel compile wait"}) {
            if (cost.phase_seconds(phase) < kNoticeable || (n == 0 && std::string(phase) == "kernel compile wait"))
                continue;
            if (static_launcher)  // a cause and no claim: nothing kept elsewhere would remove these loads
                as.claim(phase,
                         count_text(n, "Triton precompile", "Triton precompiles") + per +
                             " though the FX graph hit: the key says use_static_cuda_launcher: True, so these load "
                             "the kernels' cubins saved with the FX entry; the Triton cache is not read",
                         "", "none needed: the kernels came with the cache entry", "");
            else if (compiled)
                as.claim(phase,
                         count_text(n, "Triton kernel compile", "Triton kernel compiles") + per +
                             " though the FX graph hit: the Triton cache (TRITON_CACHE_DIR, <cache root>/triton) "
                             "lacked them and no bundle carried them (a load from it takes milliseconds a kernel)",
                         "Triton kernels compiled on a warm start",
                         "keep the Triton cache dir with the Inductor cache, or ship a bundle (kiln-cli bundle pack) "
                         "that carries the kernels",
                         "the Triton cache kept");
            else
                as.claim(phase,
                         "inferred: " + count_text(n, "Triton precompile", "Triton precompiles") + per +
                             " though the FX graph hit; loading kernels from the Triton cache takes time too, and "
                             "no span or cache event says they were compiled",
                         "Triton precompiles on a warm start, a Triton cache miss inferred",
                         "if the Triton cache (TRITON_CACHE_DIR, <cache root>/triton) was not kept, keep it with the "
                         "Inductor cache or ship a bundle (kiln-cli bundle pack) that carries the kernels",
                         "the Triton cache kept",
                         "the precompiles took " + seconds_text(triton) + per + ", below the " +
                             seconds_text(kTritonCompileEvidence) +
                             " a kernel that says it was compiled, not loaded from the Triton cache");
        }
        if (cost.phase_seconds("C++ compile") >= kNoticeable)
            as.claim("C++ compile",
                     count_text(cpp_compiles(c), "C++ compile", "C++ compiles") +
                         " though the FX graph hit: Inductor's code cache had no library for the source",
                     "C++ compiled on a warm start", "keep the Inductor cache's C++ libraries (<key>.so) with it",
                     "the C++ libraries kept");
    }
    // Dynamo recompiled the frame: a guard of the earlier compile failed.
    if (!c.recompile_reason.empty()) {
        const bool sizes = c.recompile_reason.find("size mismatch") != std::string::npos ||
                           c.recompile_reason.find("stride mismatch") != std::string::npos;
        const std::string fix =
            sizes ? "mark the dimension dynamic before the first call (torch._dynamo.mark_dynamic), or keep the "
                    "automatic-dynamic profile across runs (TORCH_COMPILE_JOB_ID) so the first compile is dynamic"
                  : "make the guard hold (TORCH_LOGS=recompiles shows it), or expect one compile per variant";
        for (const auto& p : cost.phases)
            as.claim(p.name, "dynamo recompiled " + frame + ": " + c.recompile_reason,
                     "dynamo recompiles: " + std::string(sizes ? "a shape changed" : "a guard failed"), fix,
                     sizes ? "the dimension marked dynamic" : "the guard holding");
    }
    return cost;
}

std::vector<AvoidableCost> sum_claims(const std::vector<Claim>& claims) {
    std::vector<AvoidableCost> out;
    for (const auto& c : claims) {
        auto it = std::find_if(out.begin(), out.end(),
                               [&](const AvoidableCost& a) { return a.what == c.what && a.inferred == c.inferred; });
        if (it == out.end()) out.push_back({c.what, c.seconds, c.fix, c.remedy, c.inferred, c.basis});
        else it->seconds += c.seconds;
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const AvoidableCost& a, const AvoidableCost& b) { return a.seconds > b.seconds; });
    return out;
}

}  // namespace kiln::startup
