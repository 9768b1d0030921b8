#!/usr/bin/env python3
"""ui_waits.py GUI_OPEN ROOT: where the UI thread's longest waits go, from the scheduler's view.

Runs bench/scale/gui_open on ROOT under `perf sched record` (system-wide scheduler events), then reads
`perf sched timehist`: for every time the UI thread was woken and had to wait for a CPU (its
scheduling delay), which tasks ran on the CPUs meanwhile, split between Kiln's own threads (this
process) and everything else on the machine. It tells a stall Kiln causes (its own work, its own
background threads winning the core) from a wait for a core other programs hold. Counts the window
gui_open measures: from its start until the browser is populated and the Overview complete.

Needs perf with scheduler tracepoints (root, or kernel.perf_event_paranoid <= 1). Prints a table.
usage: ui_waits.py GUI_OPEN ROOT [TOP]
"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROW = re.compile(r"^\s*(\d+\.\d+)\s+\[(\d+)\]\s+(.+?)\[(\d+)(?:/(\d+))?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    gui, root = sys.argv[1], sys.argv[2]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "sched.data")
        p = subprocess.run(["perf", "sched", "record", "-o", data, "--", gui, root],
                           capture_output=True, text=True, env=env)
        if p.returncode != 0:
            sys.exit(f"ui_waits: perf sched record failed ({p.returncode}):\n{p.stderr[-2000:]}")
        g = json.loads(next(l for l in p.stdout.splitlines() if l.startswith("{")))
        hist = subprocess.run(["perf", "sched", "timehist", "-i", data], capture_output=True, text=True)
    pid = g["pid"]
    rows = []  # (end, cpu, comm, tid, pid, sch_delay, run)
    for line in hist.stdout.splitlines():
        m = ROW.match(line)
        if m:
            end, cpu, comm, a, b = float(m[1]), int(m[2]), m[3].strip(), int(m[4]), m[5]
            tid, owner = (a, int(b)) if b else (a, a)
            rows.append((end, cpu, comm, tid, owner, float(m[7]) / 1e3, float(m[8]) / 1e3))
    mine = [r for r in rows if r[3] == pid]
    if not mine:
        sys.exit(f"ui_waits: no scheduler events of pid {pid}")
    start = min(r[0] - r[6] for r in mine)
    stop = start + max(g["populated_ms"], g["overview_complete_ms"]) / 1e3 + 0.05
    waits = sorted(((r[0] - r[6], r[5]) for r in mine if start <= r[0] - r[6] <= stop), key=lambda w: -w[1])
    print(f"UI thread {pid}: {len(waits)} dispatches in the {stop - start:.1f} s measured; gui_open: "
          f"max_gap_ms {g['max_gap_ms']}, max_busy_ms {g['max_busy_ms']}")
    print(f"{'sched delay ms':>14}  {'at s':>7}  {'kiln threads ms':>15}  {'other programs ms':>17}  top others")
    for on_cpu, delay in waits[:top]:
        lo = on_cpu - delay
        own, other, by = 0.0, 0.0, {}
        for end, _, comm, tid, owner, _, run in rows:
            s, e = max(end - run, lo), min(end, on_cpu)
            if e <= s or tid == pid:
                continue
            if owner == pid:
                own += e - s
            elif not comm.startswith("swapper"):
                other += e - s
                by[comm] = by.get(comm, 0.0) + e - s
        names = ", ".join(f"{c} {t * 1e3:.0f}" for c, t in sorted(by.items(), key=lambda x: -x[1])[:3])
        print(f"{delay * 1e3:14.1f}  {lo - start:7.2f}  {own * 1e3:15.1f}  {other * 1e3:17.1f}  {names}")
    over = sum(1 for _, d in waits if d > 0.02)
    print(f"waits over 20 ms: {over}; over 50 ms: {sum(1 for _, d in waits if d > 0.05)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
