"""A GPT-style block compiled with mode="max-autotune" into TORCHINDUCTOR_CACHE_DIR, forward and
backward, so that its timing cache holds dozens of mm/addmm/bmm ops (issue 30's "bigger case").
Torch's own AUTOTUNE lines (tables and "AUTOTUNE benchmarking takes B seconds and P seconds
precompiling for N choices") go to stderr; the caller keeps them.

usage: python retune_block.py [--dim 1024] [--heads 16] [--seq 512] [--batch 4] [--dtype bfloat16]
"""
import argparse
import time

import torch
import torch._inductor.config as cfg

p = argparse.ArgumentParser()
p.add_argument("--dim", type=int, default=1024)
p.add_argument("--heads", type=int, default=16)
p.add_argument("--seq", type=int, default=512)
p.add_argument("--batch", type=int, default=4)
p.add_argument("--dtype", default="bfloat16")
p.add_argument("--backward", type=int, default=1)
a = p.parse_args()

cfg.max_autotune_gemm_backends = "ATEN,TRITON"
dtype = getattr(torch, a.dtype)


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
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q = q.view(b, t, self.h, d // self.h).transpose(1, 2).reshape(b * self.h, t, d // self.h)
        k = k.view(b, t, self.h, d // self.h).transpose(1, 2).reshape(b * self.h, t, d // self.h)
        v = v.view(b, t, self.h, d // self.h).transpose(1, 2).reshape(b * self.h, t, d // self.h)
        att = torch.bmm(q, k.transpose(1, 2)) * (d // self.h) ** -0.5
        att = att.softmax(-1)
        y = torch.bmm(att, v).view(b, self.h, t, d // self.h).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))


torch.manual_seed(0)
m = Block(a.dim, a.heads).cuda().to(dtype)
x = torch.randn(a.batch, a.seq, a.dim, device="cuda", dtype=dtype, requires_grad=bool(a.backward))
f = torch.compile(m, mode="max-autotune")
t0 = time.time()
y = f(x)
if a.backward:
    y.float().pow(2).mean().backward()
torch.cuda.synchronize()
print(f"compile+run seconds {time.time() - t0:.1f}", flush=True)
print("device", torch.cuda.get_device_name(0))
