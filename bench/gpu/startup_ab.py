"""One process of bench/gpu/startup_ab.sh: a small workload compiled with one known start-up cause
present (variant A) or removed (variant B), timed from its first call to the end of its first calls.

usage: python startup_ab.py --case CASE --variant A|B|prep --out RUN.json
   (TORCHINDUCTOR_CACHE_DIR and TORCH_TRACE come from the caller's environment)

Cases (the cause each A has, the remedy its B applies; the caller prepares the caches):
  fx_miss      an empty cache              / the cache a first run warmed
  triton_cache the Triton cache removed    / kept (Triton bundles in FX entries off in both, or the
                                             FX entry would restore the kernels)
  best_config  the .best_config files removed / kept (coordinate descent tuning on)
  cpp_libs     the C++ libraries (.so) removed / kept (a CPU graph; TORCHINDUCTOR_VEC_ISA_OK=1 in both)
  dynamic      three sizes, dynamo recompiles / the dimension marked dynamic first (empty caches)
  vec_isa      a warm CPU graph with the vector-ISA probe / TORCHINDUCTOR_VEC_ISA_OK=1
"""
import argparse
import json
import os
import time

t_start = time.time()
p = argparse.ArgumentParser()
p.add_argument("--case", required=True)
p.add_argument("--variant", required=True, choices=["A", "B", "prep"])
p.add_argument("--out", required=True)
a = p.parse_args()

# Before torch is imported: Inductor reads these at import.
os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "1")
os.environ.setdefault("TORCHINDUCTOR_AUTOGRAD_CACHE", "1")
if a.case == "cpp_libs" or (a.case == "vec_isa" and a.variant == "B"):
    os.environ["TORCHINDUCTOR_VEC_ISA_OK"] = "1"

import torch  # noqa: E402
import torch._inductor.config as cfg  # noqa: E402

t_import = time.time()
if a.case in ("fx_miss", "triton_cache"):
    cfg.bundle_triton_into_fx_graph_cache = False


def mlp():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.LayerNorm(512), torch.nn.Linear(512, 2048), torch.nn.GELU(),
                            torch.nn.Linear(2048, 512), torch.nn.LayerNorm(512)).cuda()
    f = torch.compile(m)
    x = torch.randn(64, 512, device="cuda", requires_grad=True)
    y = f(x)
    (y.sin() * y.cos()).sum().backward()  # the backward graph compiles here, lazily
    torch.cuda.synchronize()


def coordesc():
    def k(x, y):
        return torch.nn.functional.silu(x) * y + x.mean(dim=1, keepdim=True)

    ck = torch.compile(k, options={"max_autotune_pointwise": True, "coordinate_descent_tuning": True})
    ck(torch.randn(2048, 1536, device="cuda"), torch.randn(2048, 1536, device="cuda"))
    torch.cuda.synchronize()


def cpu_graph():
    def c(x, y):
        z = (x * y + x.exp()).tanh()
        return z.sum(dim=1), (z @ y.t()).relu().mean(dim=0)

    cc = torch.compile(c, dynamic=False)
    for _ in range(2):
        cc(torch.randn(256, 300), torch.randn(256, 300))


def sizes(mark):
    def g(x):
        return torch.nn.functional.silu(x * 2.0).softmax(-1) + x.mean(dim=0)

    cg = torch.compile(g)
    for n in (1024, 2048, 4096):
        x = torch.randn(n, 768, device="cuda")
        if mark:
            torch._dynamo.mark_dynamic(x, 0)
        cg(x)
    torch.cuda.synchronize()


WORK = {"fx_miss": mlp, "triton_cache": mlp, "best_config": coordesc, "cpp_libs": cpu_graph, "vec_isa": cpu_graph,
        "dynamic": lambda: sizes(mark=a.variant == "B")}
if torch.cuda.is_available():
    torch.zeros(1, device="cuda")  # CUDA's own start-up outside the timed part, in A and B alike
t0 = time.time()
WORK[a.case]()
t1 = time.time()
info = {"case": a.case, "variant": a.variant, "first_calls_s": round(t1 - t0, 3), "import_s": round(t_import - t_start, 3),
        "process_s": round(t1 - t_start, 3), "torch": torch.__version__,
        "device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu",
        "vec_isa_ok": os.environ.get("TORCHINDUCTOR_VEC_ISA_OK")}
with open(a.out, "w") as fh:
    json.dump(info, fh)
print(json.dumps(info), flush=True)
