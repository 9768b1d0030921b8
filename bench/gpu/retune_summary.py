"""Summarizes a re-tune proof: Kiln's inventory and runs (kiln-cli retune --json) against torch's
own autotuning of the same cache (its stderr's "AUTOTUNE benchmarking takes B seconds and P
seconds precompiling for N choices" lines, and the times its timing cache recorded).

usage: python retune_summary.py INVENTORY.json RUN1.json RUN4.json TORCH_STDERR WALL1 WALL4
Prints a markdown report; exit 1 when a proof check fails.
"""
import json
import math
import os
import re
import statistics
import sys

inv_path, run1_path, run4_path, torch_log, wall1, wall4 = sys.argv[1:7]
wall1, wall4 = float(wall1), float(wall4)
inv = json.load(open(inv_path))
run1 = json.load(open(run1_path))
run4 = json.load(open(run4_path))
failed = False


def check(ok, what):
    global failed
    print(("ok    " if ok else "FAIL  ") + what)
    failed |= not ok


# Inventory: every Triton choice resolved to a binary that exists; runnable per op.
print("## Inventory")
print("| op | inputs | choices | triton | with binary | extern | runnable |")
print("|---|---|---|---|---|---|---|")
all_triton = with_binary = total = runnable = 0
for op in inv["ops"]:
    cs = op["choices"]
    tri = [c for c in cs if c["kind"] == "triton"]
    wb = [c for c in tri if c["binary"] and os.path.isfile(c["binary"])]
    ext = [c for c in cs if c["kind"] == "extern"]
    run = [c for c in cs if c["runnable"]]
    all_triton += len(tri); with_binary += len(wb); total += len(cs); runnable += len(run)
    sizes = re.findall(r"\('cuda', 'torch\.(\w+)', ([^)]*)\)", op["inputs"])
    short = "; ".join(f"{d} {s.split(', ')[:3]}" for d, s in sizes)[:60]
    print(f"| {op['op']} | {short} | {len(cs)} | {len(tri)} | {len(wb)} | {len(ext)} | {len(run)} |")
print(f"\n{len(inv['ops'])} ops, {total} choices, {all_triton} Triton ({with_binary} with an existing binary), "
      f"{runnable} runnable")
check(with_binary == all_triton, "every Triton choice resolved to a binary that exists")
for op in inv["ops"]:
    for c in op["choices"]:
        if not c["runnable"]:
            print(f"  not runnable: {op['op']} {c['name'][:24]}: {c['why']}")

# Torch's own autotuning time for these ops.
bench_s = pre_s = 0.0
n_torch = 0
for line in open(torch_log, errors="replace"):
    m = re.search(r"AUTOTUNE benchmarking takes ([\d.]+) seconds and ([\d.]+) seconds precompiling for (\d+) choices", line)
    if m:
        bench_s += float(m.group(1)); pre_s += float(m.group(2)); n_torch += int(m.group(3))
print(f"\n## Torch's autotuning\n{n_torch} choices: {bench_s:.1f} s benchmarking + {pre_s:.1f} s precompiling "
      f"= {bench_s + pre_s:.1f} s ({(bench_s + pre_s) / max(n_torch, 1):.3f} s a choice)")


def measured(run):
    out = []
    for op in run["ops"]:
        for c in op["choices"]:
            for m in c.get("measured", []):
                out.append((op, c, m))
    return out


# Fidelity: Kiln (1 GPU) against the times torch's benchmarker recorded on this machine.
print("\n## Fidelity (Kiln on 1 GPU vs torch's recorded times, same machine, same session)")
ratios_med, ratios_min = [], []
status = {}
for op, c, m in measured(run1):
    status[m["status"]] = status.get(m["status"], 0) + 1
    rec = c.get("recorded_ms")
    if m["status"] != "ok" or rec is None or rec < 0.005 or m["ms"] is None:
        continue
    ratios_med.append(m["ms"] / rec)
    ratios_min.append(m["min_ms"] / rec)
print("statuses:", status)
if ratios_med:
    med = statistics.median(abs(r - 1) for r in ratios_med)
    mn = statistics.median(abs(r - 1) for r in ratios_min)
    print(f"{len(ratios_med)} choices >= 5 us: median |Kiln median/torch - 1| = {100 * med:.1f} %, "
          f"median |Kiln min/torch - 1| = {100 * mn:.1f} %; Kiln/torch median ratio {statistics.median(ratios_med):.3f}")
    check(min(med, mn) <= 0.03, "median |Kiln/torch - 1| <= 3 % over choices >= 5 us")
verified = sum(1 for op, c, m in measured(run1) if m["status"] == "ok")
check(status.get("wrong", 0) == 0, "every output verified against the extern choice (no 'wrong')")

print("\n| op | recorded winner | margin | measured winner | margin | same | within noise |")
print("|---|---|---|---|---|---|---|")
same = within = n_ops = 0
for op in run1["ops"]:
    for cmp in op.get("comparison", []):
        n_ops += 1
        same += cmp["same_winner"]; within += cmp["same_winner"] or cmp["winner_within_noise"]
        print(f"| {op['op']} | {cmp['recorded_winner'][:20]} | {100 * cmp['recorded_margin']:.1f} % | "
              f"{cmp['measured_winner'][:20]} | {100 * cmp['measured_margin']:.1f} % | {cmp['same_winner']} | "
              f"{cmp['winner_within_noise']} |")
print(f"\nsame winner on {same} of {n_ops} ops; same or within noise on {within}")

# Wall times and overhead.
n1 = len(measured(run1)); n4 = len(measured(run4))
kernel1 = sum(m["kernel_seconds"] for _, _, m in measured(run1))
wall_choice = sum(m["wall_seconds"] for _, _, m in measured(run1))
print("\n## Wall time")
print(f"Kiln 1 GPU: {wall1:.1f} s for {n1} choices ({run1['wall_seconds']:.1f} s inside retune); "
      f"Kiln 4 GPUs: {wall4:.1f} s for {n4} choices ({run4['wall_seconds']:.1f} s inside retune)")
torch_total = bench_s + pre_s
if torch_total > 0:
    print(f"ratio to torch's autotuning ({torch_total:.1f} s): 1 GPU {wall1 / torch_total:.3f}x, "
          f"4 GPUs {wall4 / torch_total:.3f}x; 4-GPU speed-up {wall1 / max(wall4, 1e-9):.2f}x")
    print(f"ratio to torch's benchmarking alone ({bench_s:.1f} s): 1 GPU {wall1 / max(bench_s, 1e-9):.3f}x")
for name, run in (("1 GPU", run1), ("4 GPUs", run4)):
    ph = run.get("phase_seconds", {})
    busy = {}
    for _, _, m in measured(run):
        busy.setdefault(m["device"], [0, 0.0])
        busy[m["device"]][0] += 1
        busy[m["device"]][1] += m["wall_seconds"]
    print(f"{name}: phases " + ", ".join(f"{k} {v:.2f} s" for k, v in ph.items()) + "; per device: " +
          ", ".join(f"cuda:{d} {n} choices {s:.1f} s busy" for d, (n, s) in sorted(busy.items())))
for name, run in (("1 GPU", run1), ("4 GPUs", run4)):
    tl = run.get("timeline") or {}
    if not tl:
        continue
    steps = ", ".join(f"{k} {v:.2f}" for k, v in tl.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
    print(f"{name} timeline (s from the run's start): {steps}" + (" (pool restarted)" if tl.get("pool_restarted") else ""))
    for w in tl.get("workers", []):
        res = w.get("results", {})
        warm = ", ".join(f"{k} {v:.0f}" for k, v in (w.get("warmup_ms") or {}).items())
        print(f"  {w['device']}: spawned {w.get('spawned_s', 0):.2f}, up {w.get('up_s', 0):.2f} "
              f"(cuInit {w.get('cuda_init_ms', 0):.0f} ms), ready {w.get('ready_s', 0):.2f} (warm-up ms: {warm}); "
              f"results {res.get('first_s', 0):.2f} to {res.get('last_s', 0):.2f} ({res.get('count', 0)})")
print(f"per-choice overhead beyond the kernel's own runs (1 GPU): "
      f"{1000 * (wall_choice - kernel1) / max(n1, 1):.2f} ms (request wall - kernel time, averaged)")
phases = {}
for _, c, m in measured(run1):
    if c["kind"] != "triton" or m["status"] != "ok":
        continue
    for k, v in (m.get("phases_ms") or {}).items():
        phases.setdefault(k, []).append(v)
    phases.setdefault("channel (wall - worker)", []).append(1000 * (m["wall_seconds"] - m.get("worker_seconds", 0)))
    phases.setdefault("outside the kernel runs (wall - kernel)", []).append(1000 * (m["wall_seconds"] - m["kernel_seconds"]))
print("per Triton choice, median ms: " + ", ".join(f"{k} {statistics.median(v):.2f}" for k, v in phases.items()))
sys.exit(1 if failed else 0)
