#!/usr/bin/env python3
"""The reference for `kiln-cli startup`: torch's own chromium_event records of TORCH_TRACE logs, read
with the standard library alone. Per compile (an entire_frame_compile or entire_backward_compile span):
its seconds (compilation_metrics' entire_frame_compile_time_s, else the span) and each phase's seconds,
a phase being the sum of the self times (duration minus the children's) of the spans whose names it
groups; the table is core/startup/phase_names.cpp's. Prints JSON: [{"log", "compiles": [{"kind",
"compile_id", "seconds", "phases": {name: seconds}}]}]. Well-formed traces only."""
import json, re, sys

PHASES = [
    ("dynamo tracing", ["bytecode_tracing", "compile_attempt_*", "insert_deferred_runtime_asserts", "dynamo"]),
    ("guard building", ["build_guards"]),
    ("garbage collection", ["gc"]),
    ("PGO profile", ["pgo.*"]),
    ("FX graph passes", ["_recursive_pre_grad_passes", "_recursive_post_grad_passes", "_recursive_joint_graph_passes", "pass.*"]),
    ("AOTAutograd", ["backend_compile", "create_aot_dispatcher_function", "aot_*", "min_cut_rematerialization_partition",
                     "compile_fx.<locals>.*"]),
    ("cache lookup and load", ["inductor_compile", "inductor_codecache_torch_key", "AOTAutogradCache.*", "TritonBundler.*"]),
    ("Inductor lowering and codegen", ["fx_codegen_and_compile", "additional_fake_tensor_prop", "GraphLowering.*", "code_gen",
                                       "Scheduler.*", "PythonWrapperCodegen.*", "generate_kernel_code_from_nodes"]),
    ("loading the compiled module", ["PyCodeCache.load_by_key_path", "StaticAutotunerFuture.*"]),
    ("kernel compile wait", ["async_compile.wait"]),
    ("Triton compile", ["async_compile.precompile", "CachingAutotuner.slow_precompile_config", "reload_kernel_in_parent"]),
    ("C++ compile", ["compile_file"]),
    ("autotuning: GEMM templates", ["*_template_precompiling", "*_template_autotuning", "select_algorithm*"]),
    ("autotuning: fusion benchmarks", ["benchmark_fused_nodes", "benchmark_codegened_module"]),
    ("autotuning: Triton configs", ["CachingAutotuner.benchmark_all_configs"]),
    ("coordinate descent tuning", ["CachingAutotuner.coordinate_descent_tuning"]),
    ("cudagraph recording", ["*cudagraph*", "*CUDAGraph*"]),
]

def phase_of(name):
    for phase, pats in PHASES:
        for p in pats:
            if p.startswith("*") and p.endswith("*") and p[1:-1] in name: return phase
            if p.startswith("*") and not p.endswith("*") and name.endswith(p[1:]): return phase
            if p.endswith("*") and not p.startswith("*") and name.startswith(p[:-1]): return phase
            if p == name: return phase
    return "other: " + name

def records(path):
    hdr = None; payload = []
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("\t"):
            if hdr is not None: payload.append(line[1:])
            continue
        if hdr is not None: yield hdr, "\n".join(payload)
        hdr = None; payload = []
        m = re.match(r"^[VIWEC]\S+ \S+ \d+ \S+\] (\{.*)$", line)
        if m:
            try: hdr = json.loads(m.group(1))
            except ValueError: hdr = None
    if hdr is not None: yield hdr, "\n".join(payload)

ROOTS = ("entire_frame_compile", "entire_backward_compile")

def compiles(path):
    """[(kind, compile_id, seconds, {phase: seconds})] in log order; seconds from compilation_metrics if given."""
    out = []; stack = []  # [name, ts, child_us, compile index or None]
    current = None
    last_cpp = None; waited = False  # the compile's last leaf compile_file (end us, seconds); its first wait seen
    for h, p in records(path):
        if "compilation_metrics" in h and isinstance(h["compilation_metrics"], dict):
            m = h["compilation_metrics"]
            if out and out[-1][0] == "frame" and out[-1][4] is None and m.get("entire_frame_compile_time_s") is not None:
                out[-1][4] = m["entire_frame_compile_time_s"]
            continue
        if "chromium_event" not in h: continue
        try: e = json.loads(p)
        except ValueError: continue
        if e.get("ph") == "B":
            stack.append([e["name"], e["ts"], 0.0, None])
            if e["name"] in ROOTS and current is None:
                out.append(["frame" if e["name"] == ROOTS[0] else "backward", e.get("args", {}).get("compile_id"), 0.0, {}, None])
                current = len(out) - 1; stack[-1][3] = current
                last_cpp = None; waited = False
            elif e["name"] == "async_compile.wait" and current is not None and not waited:
                # torch 2.11 preprocesses its C++ prefix header (g++ -E) just before a CPU graph's first
                # wait: that compile_file is the header's, not a library's
                waited = True
                if last_cpp and 0 <= e["ts"] - last_cpp[0] <= 100000 and last_cpp[1] <= 1.0:  # longer: the PCH built
                    ph = out[current][3]
                    ph["C++ compile"] -= last_cpp[1]
                    if ph["C++ compile"] <= 1e-9: del ph["C++ compile"]
                    ph["C++ prefix header"] = ph.get("C++ prefix header", 0.0) + last_cpp[1]
                    last_cpp = None
        elif e.get("ph") == "E":
            if not stack or stack[-1][0] != e["name"]: continue  # the reference takes well-formed traces only
            name, ts, child, idx = stack.pop()
            dur = e["ts"] - ts
            if stack: stack[-1][2] += dur
            if current is not None:
                if idx == current:
                    out[current][2] = dur / 1e6; current = None
                else:
                    ph = phase_of(name)
                    out[current][3][ph] = out[current][3].get(ph, 0.0) + (dur - child) / 1e6
                    if name == "compile_file" and child == 0: last_cpp = (e["ts"], (dur - child) / 1e6)
    return [(k, cid, metric if metric is not None else span, phases) for k, cid, span, phases, metric in out]

if __name__ == "__main__":
    result = []
    for path in sys.argv[1:]:
        result.append({"log": path, "compiles": [{"kind": k, "compile_id": c, "seconds": s, "phases": p}
                                                 for k, c, s, p in compiles(path)]})
    json.dump(result, sys.stdout, indent=1)
