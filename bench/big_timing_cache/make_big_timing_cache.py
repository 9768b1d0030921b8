#!/usr/bin/env python3
"""make_big_timing_cache.py SRC_ROOT OUT_ROOT KEYS [CHOICES]: a copy of an Inductor cache root whose
timing cache (the H100 fixture's cache/<hash>) holds KEYS inputs keys under its op "mm" (issue 42 #15:
a 56 MB file of 150,000 keys). Each key is a distinct mm shape, ('cuda', 'torch.float16', M, K, K, 1,
0) x ('cuda', 'torch.float16', K, N, N, 1, 0), with the first CHOICES (default 2) choices of the
fixture's first op at times scaled by the shape, so that every choice still names a kernel module of
the root. Also writes OUT_ROOT.run.json: a saved `retune --json` of the fixture's two ops (what
`handback --from` reads), measured on the fixture's own device. Written with Python's json, as torch
writes the file."""
import json
import os
import shutil
import sys


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    src, out, keys = sys.argv[1], sys.argv[2], int(sys.argv[3])
    choices = int(sys.argv[4]) if len(sys.argv) == 5 else 2
    if os.path.exists(out):
        shutil.rmtree(out)
    shutil.copytree(src, out, symlinks=True)
    cache_dir = os.path.join(out, "cache")
    files = sorted(os.listdir(cache_dir))
    name = next(f for f in files if "H100" in json.load(open(os.path.join(cache_dir, f)))["system"]["device"]["name"])
    path = os.path.join(cache_dir, name)
    data = json.load(open(path))
    first_key, first = next(iter(data["cache"]["mm"].items()))
    base = dict(list(first["highest"].items())[:choices])
    run = {"devices": [{"index": 0, "name": data["system"]["device"]["name"], "arch": "sm_90"}], "ops": []}
    for inputs, by_precision in data["cache"]["mm"].items():
        for precision, times in by_precision.items():
            run["ops"].append({
                "op": "mm", "inputs": inputs, "precision": precision,
                "recorded_for": {"system_hash": name, "device": data["system"]["device"]["name"],
                                 "triton": data["system"]["version"]["triton"], "cuda": data["system"]["version"]["cuda"]},
                "choices": [{"name": c, "kind": "triton" if c.startswith("triton") else "extern", "runnable": True,
                             "why": "", "recorded_ms": ms,
                             "measured": [{"device": 0, "status": "ok", "ms": ms * 0.9, "spread_ms": ms / 100, "why": ""}]}
                            for c, ms in times.items()]})
    mm = {}
    for i in range(keys):
        m, k, n = 16 * (1 + i % 4096), 64 * (1 + (i // 4096) % 64), 64 * (1 + i // (4096 * 64))
        inputs = f"[('cuda', 'torch.float16', {m}, {k}, {k}, 1, 0), ('cuda', 'torch.float16', {k}, {n}, {n}, 1, 0)]"
        scale = m * k * n / (512.0 ** 3)
        mm[inputs] = {"highest": {c: ms * scale for c, ms in base.items()}}
    data["cache"]["mm"] = mm
    with open(path, "w") as f:
        json.dump(data, f, indent=4)
    with open(out.rstrip("/") + ".run.json", "w") as f:
        json.dump(run, f)
    print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB, {keys} inputs keys, {len(base)} choices each "
          f"(first fixture key {first_key[:40]}...)")


if __name__ == "__main__":
    main()
