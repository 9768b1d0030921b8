#!/usr/bin/env python3
"""Re-run the torch.compile scenarios that wrote Kiln's Inductor-cache fixtures (tests/data/*.tar.xz).

Same graphs, shapes, dtypes, Inductor config and environment as the fixtures' own script, so a run
on the same kind of machine (torch 2.11.0+cu130, triton 3.6.0, Python 3.12, NVIDIA H100 80GB HBM3,
CXX=/opt/gcc/bin/g++) computes the same FX-graph and AOTAutograd cache keys as the fixtures.
  python3 scenarios.py --phase warm --out run_warm.json --cache-dir DIR [--trace DIR]
Phases and the fixture each re-creates: see PHASES below and bench/gpu/README.md.
The scenario functions stay on the lines the fixture traces name (f at 47, g at 57, h at 67, ...).
"""
import argparse
import json
import os
import sys
import time

torch = None  # imported by main() after the environment is set: Inductor reads it at import
counters = None
RESULTS = {}


def run(name, fn):
    """One scenario in a fresh Dynamo state (every compile id is 0/N, as in the fixtures):
    status, seconds and torch's counters."""
    torch._dynamo.reset()
    counters.clear()
    t0 = time.time()
    try:
        info = fn() or {}
        status = "ok"
    except Exception as e:  # record and go on: later scenarios still say something
        info = {"error": f"{type(e).__name__}: {e}"[:2000]}
        status = "error"
    RESULTS[name] = {"status": status, "seconds": round(time.time() - t0, 3),
                     "counters": snapshot_counters(), **info}
    print(f"{name}: {status} {RESULTS[name]['seconds']} s {fx_cache_counts()}", flush=True)


def cuda(*shape, dtype=None):
    # Values never reach a cache key; shapes, strides, dtypes and devices do.
    return torch.randn(*shape, device="cuda", dtype=dtype)


def pointwise_dynamic():
    # Dynamic-shape pointwise graph: one dynamic=True compile serves every size
    # (guards 2 <= t0 <= 2**31-1: the 32-bit indexing guard).
    def f(x, y):
        return (x.sin() * y.cos()).relu() + 1.0

    cf, sizes = torch.compile(f, dynamic=True), [8, 16, 1000, 4096, 65536]
    for n in sizes:
        cf(cuda(n), cuda(n))
    return {"sizes": sizes}


def reduction_dynamic():
    def g(x):
        return torch.softmax(x * 2.0, dim=-1).sum(dim=0)

    cg = torch.compile(g, dynamic=True)
    for shape in [(4, 128), (16, 512), (33, 1000)]:
        cg(cuda(*shape))


def guarded_branch():
    # Two graphs on one frame: guards `t0 <= 64` and `65 <= t0`.
    def h(x):
        if x.shape[0] > 64:
            return (x @ x.t()).tanh().sum(-1)
        return x.cos().sum(-1)

    ch = torch.compile(h, dynamic=True)
    for rows in [16, 128]:
        ch(cuda(rows, 32))


def mlp_train():
    # Forward + backward of a small MLP: AOTAutograd entry with forward and backward FX graphs.
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.GELU(),
        torch.nn.LayerNorm(512), torch.nn.Linear(512, 64),
    ).cuda()
    x = torch.randn(128, 256, device="cuda")
    cm = torch.compile(model)
    loss = cm(x).square().mean()
    loss.backward()
    return {"loss": float(loss)}  # torch warns here (requires_grad), as in the fixture's stderr


def max_autotune_mm():
    # max-autotune mm: 512 static; 1024x2048x256 recompiles dynamic (s97, s52, s20), 4096 reuses
    # it. The mode = max_autotune + coordinate_descent_tuning (no triton.cudagraphs in the keys).
    def mm(a, b):
        return (a @ b).relu()

    cmm = torch.compile(mm, mode="max-autotune-no-cudagraphs")
    shapes = [[512, 512, 512], [1024, 2048, 256], [4096, 4096, 4096]]
    for m, k, n in shapes:
        cmm(cuda(m, k, dtype=torch.float16), cuda(k, n, dtype=torch.float16))
    torch.cuda.synchronize()
    return {"shapes": shapes}


def coordesc_pointwise():
    # Coordinate-descent tuning of a pointwise+reduction kernel (.best_config found_by_coordesc).
    options = {"max_autotune_pointwise": True, "coordinate_descent_tuning": True}

    def k(x, y):
        return torch.nn.functional.silu(x) * y + x.mean(dim=1, keepdim=True)

    ck = torch.compile(k, options=options)
    ck(cuda(2048, 1536), cuda(2048, 1536))
    torch.cuda.synchronize()


def cpu_graph():
    def c(x, y):
        return (x * y + x.exp()).sum(dim=1)

    cc = torch.compile(c, dynamic=False)
    for _ in range(3):
        cc(torch.randn(64, 100), torch.randn(64, 100))


def cpu_dynamic():
    def c2(x):
        return torch.nn.functional.gelu(x).cumsum(0) if x.shape[0] > 3 else x * 2

    cc2 = torch.compile(c2, dynamic=True)
    for rows in [2, 10]:
        cc2(torch.randn(rows, 17))


def config_changed():
    # The pointwise graph under another Inductor config (the fixture's `changed` process):
    # same graph, new key.
    with torch._inductor.config.patch(realize_opcount_threshold=10, max_fusion_size=32):
        pointwise_dynamic()


def pw(x, y):
    # inductor-two-entries: one dynamic f16 graph; 2**31+16 elements fail the 32-bit indexing guard.
    return (x * 0.5 + y).sigmoid()


def pointwise_small():
    torch.compile(pw, dynamic=True)(cuda(64, dtype=torch.float16), cuda(64, dtype=torch.float16))


def pointwise_huge():
    n = 2**31 + 16  # three 4 GiB f16 tensors
    x = torch.empty(n, device="cuda", dtype=torch.float16).normal_()
    y = torch.empty(n, device="cuda", dtype=torch.float16).normal_()
    torch.compile(pw, dynamic=True)(x, y)
    torch.cuda.synchronize()


def f_dev(x, w):
    # inductor-pgo: automatic dynamic shapes; the second process reads the PGO profile.
    return torch.nn.functional.silu(x @ w).sum(-1)


def pgo_sizes(sizes):
    cf = torch.compile(f_dev)
    w = cuda(64, 32)
    for n in sizes:
        cf(cuda(n, 64), w)
    torch.cuda.synchronize()


# Phases: which fixture process each one re-creates (processes are separate: run one phase each).
PHASES = {
    # inductor-h100-torch2.11: cold (empty cache), warm (hits), changed (new key)
    "cold": [pointwise_dynamic, reduction_dynamic, guarded_branch, mlp_train, max_autotune_mm,
             coordesc_pointwise, cpu_graph, cpu_dynamic],
    "warm": [pointwise_dynamic, mlp_train, max_autotune_mm, cpu_graph],
    "changed": [config_changed],
    # inductor-h100-then-h200: three scenarios in one Dynamo state, then save_cache_artifacts()
    "mega": [pointwise_dynamic, mlp_train, max_autotune_mm],
    # inductor-two-entries: psmall, then huge (second entry in the same key dir)
    "psmall": [pointwise_small],
    "huge": [pointwise_huge],
    # inductor-pgo: p1 (sizes 8, 24, 40: recompiles dynamic, writes the profile), p2 / pgo-mega
    "p1": [lambda: pgo_sizes([8, 24, 40])],
    "p2": [lambda: pgo_sizes([8])],
    "pgo-mega": [lambda: pgo_sizes([8])],
}
PGO_PHASES = ("p1", "p2", "pgo-mega")
NO_RESET_PHASES = ("mega",)


def snapshot_counters():
    return {k: dict(v) for k, v in counters.items()}


def fx_cache_counts():
    ind = counters.get("inductor", {})
    return {k: ind[k] for k in ("fxgraph_cache_hit", "fxgraph_cache_miss", "fxgraph_cache_bypass") if k in ind}


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--phase", required=True, choices=sorted(PHASES))
    ap.add_argument("--out", required=True, help="JSON results (the fixtures' run_<phase>.json schema)")
    ap.add_argument("--cache-dir", help="TORCHINDUCTOR_CACHE_DIR (default: the environment's)")
    ap.add_argument("--trace", help="TORCH_TRACE directory (structured log with the cache keys)")
    ap.add_argument("--mm-log", help="TORCHINDUCTOR_MM_LOGGING_FILE")
    ap.add_argument("--scenarios", help="comma-separated subset of the phase's scenarios")
    ap.add_argument("--load-artifacts", metavar="BLOB",
                    help="torch.compiler.load_cache_artifacts(BLOB) before the scenarios")
    ap.add_argument("--save-artifacts", metavar="BLOB",
                    help="torch.compiler.save_cache_artifacts() into BLOB after the scenarios "
                         "(phases mega and pgo-mega: default megacache.bin beside --out)")
    ap.add_argument("--job-id", default="kiln-dev-job", help="TORCH_COMPILE_JOB_ID of the PGO phases")
    return ap.parse_args(argv)


def set_environment(args):
    """The fixture processes' environment (their fx_graph_runnable and cache-key components)."""
    env = os.environ
    if args.cache_dir:
        env["TORCHINDUCTOR_CACHE_DIR"] = os.path.abspath(args.cache_dir)
    if args.trace:
        env["TORCH_TRACE"] = os.path.abspath(args.trace)
    if args.mm_log:
        env["TORCHINDUCTOR_MM_LOGGING_FILE"] = os.path.abspath(args.mm_log)
    if args.phase in PGO_PHASES:  # torch 2.11 writes the local PGO profile only with a job id
        env["TORCH_COMPILE_JOB_ID"] = args.job_id
    else:  # the inductor-h100 processes had none (compiler_config job_id null)
        env.pop("TORCH_COMPILE_JOB_ID", None)
    env.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "1")
    env.setdefault("TORCHINDUCTOR_AUTOGRAD_CACHE", "1")
    env.setdefault("TORCH_CUDA_ARCH_LIST", "9.0a")
    # inductor_config[cpp.cxx] is a key component: the fixtures say (None, '/opt/gcc/bin/g++').
    env.setdefault("CXX", "/opt/gcc/bin/g++")
    if not os.access(env["CXX"], os.X_OK):
        print(f"warning: CXX={env['CXX']} is not an executable: CPU graphs will fail to build; "
              f"make it a link to g++ 13 (mkdir -p /opt/gcc/bin && ln -s \"$(command -v g++)\" "
              f"/opt/gcc/bin/g++) or set CXX (other keys then)", file=sys.stderr)


def selected(args):
    fns = PHASES[args.phase]
    if not args.scenarios:
        return fns
    wanted = args.scenarios.split(",")
    by_name = {fn.__name__: fn for fn in fns}
    unknown = [w for w in wanted if w not in by_name]
    if unknown:
        sys.exit(f"scenarios.py: phase {args.phase} has no scenario {unknown} (has {sorted(by_name)})")
    return [by_name[w] for w in wanted]


def load_artifacts(path):
    with open(path, "rb") as f:
        blob = f.read()
    info = torch.compiler.load_cache_artifacts(blob)
    if info is None:
        sys.exit(f"scenarios.py: torch could not load the cache artifacts in {path}")
    return {"bytes": len(blob), "info": str(info)}


def save_artifacts(path):
    saved = torch.compiler.save_cache_artifacts()
    if saved is None:
        return {"bytes": 0, "info": "nothing recorded"}
    blob, info = saved
    with open(path, "wb") as f:
        f.write(blob)
    return {"bytes": len(blob), "info": str(info), "path": path}


def run_without_reset(fns, save_path):
    """The H200 `mega` process: scenarios back to back in one Dynamo state, then the blob."""
    counters.clear()
    t0 = time.time()
    try:
        for fn in fns:
            fn()
        info = save_artifacts(save_path) if save_path else {}
        status = "ok"
    except Exception as e:
        info, status = {"error": f"{type(e).__name__}: {e}"[:2000]}, "error"
    RESULTS["mega"] = {"status": status, **info, "seconds": round(time.time() - t0, 3),
                       "counters": snapshot_counters()}
    print(f"mega: {status} {RESULTS['mega']['seconds']} s {fx_cache_counts()}", flush=True)


def run_pgo(args, fn, save_path):
    """inductor-pgo's schema: one scenario per process, status at the top level."""
    counters.clear()
    t0 = time.time()
    out = {"phase": args.phase, "variant": "dev", "torch": torch.__version__}
    try:
        fn()
        if save_path:
            saved = save_artifacts(save_path)
            out["mega"], out["mega_bytes"] = saved["info"], saved["bytes"]
        out["status"] = "ok"
    except Exception as e:
        out["status"], out["error"] = "error", f"{type(e).__name__}: {e}"[:2000]
    out["seconds"] = round(time.time() - t0, 3)
    out["counters"] = snapshot_counters()
    print(f"{args.phase}: {out['status']} {out['seconds']} s {fx_cache_counts()}", flush=True)
    return out


def main(argv):
    global torch, counters
    args = parse_args(argv)
    set_environment(args)
    import torch as torch_module  # noqa: E402 (after the environment)
    from torch._dynamo.utils import counters as torch_counters
    torch, counters = torch_module, torch_counters
    fns = selected(args)
    out_dir = os.path.dirname(os.path.abspath(args.out))
    save_path = args.save_artifacts
    if save_path is None and args.phase in ("mega", "pgo-mega"):
        save_path = os.path.join(out_dir, "megacache.bin" if args.phase == "mega" else "megacache-pgo.bin")
    loaded = load_artifacts(args.load_artifacts) if args.load_artifacts else None
    if args.phase in PGO_PHASES:
        out = run_pgo(args, fns[0], save_path)
    elif args.phase in NO_RESET_PHASES:
        run_without_reset(fns, save_path)
        out = {"phase": args.phase, "torch": torch.__version__, "scenarios": RESULTS}
    else:
        for fn in fns:
            run(fn.__name__, fn)
        out = {"phase": args.phase, "torch": torch.__version__, "scenarios": RESULTS}
        if save_path:
            out["saved_artifacts"] = save_artifacts(save_path)
    if loaded:
        out["loaded_artifacts"] = loaded
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
    failed = [n for n, s in RESULTS.items() if s.get("status") == "error"] + \
        ([args.phase] if out.get("status") == "error" else [])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
