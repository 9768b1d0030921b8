"""One rank of a torchrun job that max-autotunes the same model with a cache of its own (issue 43):
the bf16 block of model_cache.py forward and backward, plus an all_reduce compiled into a graph (the
process-group name and the device index land in that graph). Each rank then times STEPS compiled
training steps with CUDA events (median) and writes rank<R>/run.json.

torchrun --nproc_per_node N ranks_job.py --out DIR [--pin TABLE]   (TORCHINDUCTOR_CACHE_DIR is set per rank here)
"""
import argparse
import json
import os
import statistics
import time

p = argparse.ArgumentParser()
p.add_argument("--out", required=True)
p.add_argument("--steps", type=int, default=200)
p.add_argument("--cache-base", default=None, help="per-rank caches under BASE/rank<R>/inductor (default OUT)")
p.add_argument("--pin", default=None, help="an Inductor lookup table (kiln-cli --pin) loaded before compiling")
a = p.parse_args()
rank = int(os.environ["RANK"])
local = int(os.environ["LOCAL_RANK"])
rdir = os.path.join(a.out, f"rank{rank}")
os.makedirs(rdir, exist_ok=True)
base = a.cache_base or a.out
os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(base, f"rank{rank}", "inductor")
os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "1")

import torch  # noqa: E402  (after the cache dir is chosen)
import torch.distributed as dist  # noqa: E402
import torch._inductor.config as cfg  # noqa: E402

cfg.max_autotune_gemm_backends = "ATEN,TRITON"
if a.pin:  # the class in the config: the handler alone is thread-local and misses the backward graph
    from torch._inductor.lookup_table import LookupTableChoices

    with open(a.pin) as fh:
        cfg.lookup_table.table = json.load(fh)
    cfg.inductor_choices_class = LookupTableChoices
torch.cuda.set_device(local)
dist.init_process_group("nccl")
MODE = "max-autotune-no-cudagraphs"


class Block(torch.nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, 4 * d)
        self.fc2 = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        hd = d // self.h
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q = q.view(b, t, self.h, hd).transpose(1, 2).reshape(b * self.h, t, hd)
        k = k.view(b, t, self.h, hd).transpose(1, 2).reshape(b * self.h, t, hd)
        v = v.view(b, t, self.h, hd).transpose(1, 2).reshape(b * self.h, t, hd)
        att = torch.bmm(q, k.transpose(1, 2)) * hd**-0.5
        att = att.softmax(-1)
        y = torch.bmm(att, v).view(b, self.h, t, hd).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))


def reduce_loss(loss):  # compiled: the collective and its group name are in the graph
    loss = loss * 1.0
    dist.all_reduce(loss)
    return loss / dist.get_world_size()


torch.manual_seed(0)
m = Block(384, 6).cuda().to(torch.bfloat16)
x = torch.randn(4, 256, 384, device="cuda", dtype=torch.bfloat16, requires_grad=True)
f = torch.compile(m, mode=MODE)
r = torch.compile(reduce_loss, mode=MODE)
t0 = time.time()
loss = f(x).float().pow(2).mean()
loss.backward()
total = r(loss.detach())
torch.cuda.synchronize()
compile_s = time.time() - t0


def step():
    y = f(x)
    y.float().pow(2).mean().backward()


for _ in range(10):
    step()
torch.cuda.synchronize()
times = []
for _ in range(a.steps):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    step()
    e.record()
    e.synchronize()
    times.append(s.elapsed_time(e))
# The step launched from Python is host-bound (the GPU idles between kernels), so its CUDA-event time
# moves with the host; the kernels' own time per step, from the profiler, is what a kernel choice changes.
gpu_ms = None
try:
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(20):
            step()
        torch.cuda.synchronize()
    us = sum(getattr(ev, "self_device_time_total", 0) or getattr(ev, "self_cuda_time_total", 0) for ev in prof.key_averages())
    gpu_ms = us / 1000.0 / 20
except Exception as exc:  # the step times above stand without it
    print(f"profiler: {exc}", flush=True)
info = {"rank": rank, "local_rank": local, "device": torch.cuda.get_device_name(local), "torch": torch.__version__,
        "compile_seconds": round(compile_s, 2), "steps": a.steps, "step_ms_median": statistics.median(times),
        "step_ms_min": min(times), "gpu_ms_per_step": gpu_ms, "loss": float(total), "cache_dir": os.environ["TORCHINDUCTOR_CACHE_DIR"]}
with open(os.path.join(rdir, "run.json"), "w") as fh:
    json.dump(info, fh, indent=1)
print(json.dumps(info), flush=True)
dist.destroy_process_group()
