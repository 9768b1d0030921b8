#!/usr/bin/env python3
"""Kiln's re-tune times against torch's own (issue 40, item 1): for every choice that both measured,
Kiln's `ms` (the statistic the run wrote: torch's minimum over event pairs by default) and its median
against the time torch recorded for it. torch's timing cache holds exactly the numbers its AUTOTUNE
tables print (both come from one benchmark call); this checks that too, on the stderr given.

usage: python3 retune_vs_torch.py RUN.json TORCH_STDERR [BENCH_TRACE.json]
BENCH_TRACE (model_cache.py --bench-trace): the same comparison split by the thread torch benchmarked in,
with torch's host launch time per call, for the choices whose recorded time identifies its call; with
--bench-ab, also against torch's benchmarker run again on that call with the GPU kept ahead of the host.
Prints markdown; exit 1 when the median abs(Kiln/torch - 1) of `ms` is over 3 %.
"""
import collections
import json
import re
import statistics
import sys

run = json.load(open(sys.argv[1]))
stderr = open(sys.argv[2], errors="replace").read()

# The AUTOTUNE tables' times (4 decimals, as printed) against the timing cache's (recorded_ms).
table_ms = collections.Counter(round(float(t), 4) for t in re.findall(r"^  \S+ ([\d.]+) ms ", stderr, re.M))
recorded = collections.Counter(
    round(c["recorded_ms"], 4) for op in run["ops"] for c in op["choices"] if c.get("recorded_ms") is not None)
common = sum((table_ms & recorded).values())
print(f"torch's AUTOTUNE tables: {sum(table_ms.values())} times; timing cache: {sum(recorded.values())} finite times; "
      f"{common} equal to 4 decimals (the tables and the file are one measurement)")

rows = []
for op in run["ops"]:
    for c in op["choices"]:
        t = c.get("recorded_ms")
        for m in c.get("measured", []):
            if m["status"] != "ok" or t is None or not t or m.get("ms") is None:
                continue
            rows.append((op["op"] + " " + op["inputs"], c["name"], t, m["ms"], m.get("median_ms") or 0))
if not rows:
    print("no choice measured by both")
    sys.exit(1)
dev_min = [abs(k / t - 1) for _, _, t, k, _ in rows]
dev_med = [abs(md / t - 1) for _, _, t, _, md in rows if md]
signed = [k / t - 1 for _, _, t, k, _ in rows]
print(f"\nstatistic written: {run.get('statistic', '?')} ({run.get('statistic_means', '')})")
print(f"choices measured by both: {len(rows)} in {len({r[0] for r in rows})} of {len(run['ops'])} ops")
print("| Kiln's time | median abs(Kiln/torch - 1) | median Kiln/torch - 1 | within 3 % | within 10 % |")
print("| --- | ---: | ---: | ---: | ---: |")
print(f"| ms ({run.get('statistic', '?')}) | {100 * statistics.median(dev_min):.1f} % | "
      f"{100 * statistics.median(signed):+.1f} % | {sum(d <= 0.03 for d in dev_min)} of {len(dev_min)} | "
      f"{sum(d <= 0.10 for d in dev_min)} of {len(dev_min)} |")
if dev_med:
    print(f"| median of the timed pairs | {100 * statistics.median(dev_med):.1f} % | "
          f"{100 * statistics.median([md / t - 1 for _, _, t, _, md in rows if md]):+.1f} % | "
          f"{sum(d <= 0.03 for d in dev_med)} of {len(dev_med)} | {sum(d <= 0.10 for d in dev_med)} of {len(dev_med)} |")
worst = sorted(rows, key=lambda r: -abs(r[3] / r[2] - 1))[:5]
print("\nlargest differences: " + "; ".join(f"{o.split()[0]} {n[:22]} torch {t:.4f} Kiln {k:.4f} ms" for o, n, t, k, _ in worst))
if len(sys.argv) > 3:
    # Each benchmark_gpu call's result is the number torch recorded: a recorded time held by one choice
    # names its call, and so the thread and the host times of that choice's benchmark.
    trace = json.load(open(sys.argv[3]))
    by_value = collections.defaultdict(list)
    for o, n, t, k, _ in rows:
        by_value[round(t, 7)].append(k)
    split = collections.defaultdict(list)
    for call in trace:
        ks = by_value.get(round(call["ms"], 7), [])
        if len(ks) == 1:
            split[call["thread"]].append((call, ks[0]))
    print(f"\nby the thread torch benchmarked in ({sum(len(v) for v in split.values())} choices whose recorded time names its call):")
    print("| thread | choices | median abs(Kiln/torch - 1) | torch minus Kiln, median | torch's launch (host), median of minima | host cycle per pair |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for th, v in sorted(split.items(), key=lambda kv: -len(kv[1])):
        print(f"| {th} | {len(v)} | {100 * statistics.median(abs(k / c['ms'] - 1) for c, k in v):.1f} % | "
              f"{1000 * statistics.median(c['ms'] - k for c, k in v):.1f} us | "
              f"{statistics.median(c['launch_us_min'] for c, k in v):.1f} us | "
              f"{statistics.median(c['cycle_us_median'] for c, k in v if c['cycle_us_median']):.1f} us |")
    # The A/B (model_cache.py --bench-ab): the same benchmark_gpu call again with the GPU kept ahead of
    # the host (lead), and again as torch runs it (control), against Kiln's time for that choice.
    ab = [(c, k) for v in split.values() for c, k in v if c.get("ms_lead")]
    if ab:
        print(f"\ntorch's benchmarker run again on the same call ({len(ab)} choices; torch's own result first):")
        print("| thread | choices | torch as recorded | control: as torch runs it, again | GPU kept ahead of the host | "
              "lead minus control, median | within 3 % (lead) |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        groups = collections.defaultdict(list)
        for c, k in ab:
            groups[c["thread"]].append((c, k))
        groups["all"] = ab
        for th, v in groups.items():
            med = lambda key: 100 * statistics.median(abs(k / c[key] - 1) for c, k in v)
            print(f"| {th} | {len(v)} | {med('ms'):.1f} % | {med('ms_again'):.1f} % | {med('ms_lead'):.1f} % | "
                  f"{1000 * statistics.median(c['ms_lead'] - c['ms_again'] for c, k in v):+.1f} us | "
                  f"{sum(abs(k / c['ms_lead'] - 1) <= 0.03 for c, k in v)} of {len(v)} |")
ok = statistics.median(dev_min) <= 0.03
print(("ok    " if ok else "FAIL  ") + "median abs(Kiln/torch - 1) <= 3 %")
sys.exit(0 if ok else 1)
