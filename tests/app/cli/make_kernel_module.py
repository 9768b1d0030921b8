"""Compiles a small model with torch.compile and inductor's benchmark_kernel on, into CACHE_DIR, and
prints the path of its output-code module (the kind `kiln-cli rebench --kernels` times per kernel).
Usage: python3 make_kernel_module.py CACHE_DIR"""
import os, sys

cache = os.path.abspath(sys.argv[1])
os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
os.environ["TORCHINDUCTOR_BENCHMARK_KERNEL"] = "1"
import torch
import torch._inductor.config as config

config.benchmark_kernel = True

def model(x, w):
    # Row reductions, a column reduction and a scan: kernels Inductor cannot fuse into one.
    h = torch.nn.functional.gelu(x @ w)
    rows = torch.nn.functional.layer_norm(h, h.shape[-1:])
    cols = h.sum(dim=0)
    scan = torch.cumsum(x, dim=1)
    return rows, cols, scan

x = torch.randn(2048, 1024, device="cuda")
w = torch.randn(1024, 1024, device="cuda")
torch.compile(model)(x, w)
torch.cuda.synchronize()
mods = []
for root, _, files in os.walk(cache):
    for f in files:
        p = os.path.join(root, f)
        if f.endswith(".py") and "def benchmark_compiled_module" in open(p, errors="replace").read():
            mods.append((os.path.getmtime(p), p))
if not mods:
    sys.exit("no output-code module written under " + cache)
print(max(mods)[1])
