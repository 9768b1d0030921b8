#!/usr/bin/env python3
"""The measurements of bench/scale/run: see that script for what and why."""
import json, os, platform, statistics, subprocess, sys, time

build, cache, target = sys.argv[1], sys.argv[2], sys.argv[3]
runs = int(os.environ.get("RUNS", "5"))
cold_runs = int(os.environ.get("COLD_RUNS", "3"))
gnu_time = os.environ.get("KILN_TIME", "/usr/bin/time")
cli = os.path.join(build, "bin", "kiln-cli")


_help = subprocess.run([cli, "--help"], capture_output=True, text=True).stdout
_subcommands = {l.split()[0] for l in _help.split("Subcommands:", 1)[-1].splitlines() if l.startswith("  ") and l.split()}


def has(sub):
    return sub in _subcommands


cmds = {"find -printf": ["find", cache, "-printf", "%s %T@ %p\n"],
        "stats --json": [cli, "stats", cache, "--json"]}
# KILN_BEFORE_CLI: an older kiln-cli (e.g. main before a change) measured in the same run, each of its
# commands in a "(before)" row; KILN_BEFORE=stats limits those rows to the named commands.
before = os.environ.get("KILN_BEFORE_CLI")
before_only = set(os.environ.get("KILN_BEFORE", "stats,check,portable,ls").split(","))
if before:
    cmds["stats (before)"] = [before, "stats", cache, "--json"]
for sub, extra in (("check", []), ("portable", ["--target", target]), ("ls", [])):
    if has(sub):
        cmds[f"{sub} --json"] = [cli, sub, cache] + extra + ["--json"]
    if before and sub in before_only:
        cmds[f"{sub} (before)"] = [before, sub, cache] + extra + ["--json"]


def once(argv):
    t0 = time.perf_counter()
    p = subprocess.run([gnu_time, "-v"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if p.returncode not in (0, 1):  # check/portable: 1 when they found something
        sys.exit(f"bench/scale: {' '.join(argv)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    rss = next(int(l.split()[-1]) for l in p.stderr.splitlines() if "Maximum resident set size" in l)
    return wall, rss / 1024.0


def drop_caches():
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


cold = {name: [] for name in cmds}
can_drop = cold_runs > 0 and drop_caches()  # COLD_RUNS=0: warm only, the page cache left alone
if can_drop:
    for _ in range(cold_runs):
        for name, argv in cmds.items():
            drop_caches()
            cold[name].append(once(argv))
warm = {name: [] for name in cmds}
for argv in cmds.values():  # warm the page cache and the dentry cache
    once(argv)
for _ in range(runs):
    for name, argv in cmds.items():
        warm[name].append(once(argv))

stats = json.loads(subprocess.run(cmds["stats --json"], capture_output=True, text=True).stdout)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
fs = subprocess.run(["df", "-T", cache], capture_output=True, text=True).stdout.splitlines()[-1].split()[1]
print(f"cache: {stats['total']['files']:,} files, {stats['total']['bytes'] / 1e9:.1f} GB apparent, "
      f"{stats['fxgraph_keys']:,} fxgraph keys ({fs})")
print(f"machine: {cpu}, {os.cpu_count()} CPUs ({len(os.sched_getaffinity(0))} usable), Linux {platform.release()}, "
      f"load {os.getloadavg()[0]:.1f}")
print(f"warm: {runs} runs each after one warm-up; cold: " +
      (f"{cold_runs} runs each, page cache dropped before every run" if can_drop
       else "not measured (COLD_RUNS=0)" if cold_runs == 0
       else "not measured (writing /proc/sys/vm/drop_caches is not permitted here)"))
print()


def med(r):
    return statistics.median(w for w, _ in r)


def table(res, label):
    base, st = med(res["find -printf"]), med(res["stats --json"])
    print(f"| {label:<5} | {'command':<18} | {'median s':>8} | {'min s':>7} | {'peak RSS MB':>11} | {'x find':>6} | {'x stats':>7} |")
    print(f"| ----- | {'-' * 18} | {'-' * 7}: | {'-' * 6}: | {'-' * 10}: | {'-' * 5}: | {'-' * 6}: |")
    for name, r in res.items():
        m = med(r)
        print(f"| {label:<5} | {name:<18} | {m:>8.2f} | {min(w for w, _ in r):>7.2f} | "
              f"{max(x for _, x in r):>11.1f} | {m / base:>6.2f} | {m / st:>7.2f} |")


table(warm, "warm")
if can_drop:
    table(cold, "cold")
print()


def verdict(name, value, limit, unit="x"):
    ok = value <= limit
    print(f"  {name:<34} {value:7.2f}{unit} (target <= {limit}{unit}): {'met' if ok else 'MISSED'}")


print("targets")
for label, res in (("warm", warm), ("cold", cold if can_drop else None)):
    if not res:
        continue
    verdict(f"stats / find ({label})", med(res["stats --json"]) / med(res["find -printf"]), 1.2)
    if "check --json" in res:
        verdict(f"check / stats ({label})", med(res["check --json"]) / med(res["stats --json"]), 3)
    if "portable --json" in res:
        verdict(f"portable / stats ({label})", med(res["portable --json"]) / med(res["stats --json"]), 2)
    if "ls --json" in res:  # no target of its own: reported
        print(f"  {'ls / stats (' + label + ')':<34} {med(res['ls --json']) / med(res['stats --json']):7.2f}x")
verdict("stats peak RSS", max(x for _, x in warm["stats --json"]), 200, " MB")
if "check --json" in warm:  # issue 21's 200 MB is for 100k files; at a million: bounded, reported
    print(f"  {'check peak RSS':<34} {max(x for _, x in warm['check --json']):7.2f} MB")

gui = os.path.join(build, "bench", "gui_open")
if os.path.exists(gui):
    # The whole window as `kiln ROOT` opens it, RUNS times, each followed by `stats` in the same minute
    # (the memory baseline). The window keeps one scan for the browser and runs the Overview's sections
    # (stats, evict dry run, entries, portability, health) on it.
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    runs_gui, stats_rss = [], []
    for _ in range(runs):
        p = subprocess.run([gnu_time, "-v", gui, cache], capture_output=True, text=True, env=env)
        if p.returncode != 0:
            sys.exit(f"bench/scale: gui_open failed:\n{p.stdout}\n{p.stderr[-2000:]}")
        g = json.loads(next(l for l in p.stdout.splitlines() if l.startswith("{")))
        g["rss"] = next(int(l.split()[-1]) for l in p.stderr.splitlines() if "Maximum resident set size" in l) / 1024.0
        runs_gui.append(g)
        stats_rss.append(once(cmds["stats --json"])[1])
    gm = lambda k: statistics.median(g[k] for g in runs_gui)
    st_rss = statistics.median(stats_rss)
    print()
    print(f"GUI ({env['QT_QPA_PLATFORM']}), medians of {runs}: first paint {gm('first_paint_ms'):.0f} ms, Overview "
          f"painted {gm('overview_ms'):.0f} ms, statistics {gm('overview_stats_ms'):.0f} ms, complete "
          f"{gm('overview_complete_ms'):.0f} ms, browser populated {gm('populated_ms'):.0f} ms "
          f"({runs_gui[0]['rows']:,} files); longest UI-thread gap {gm('max_gap_ms'):.0f} ms "
          f"(max {max(g['max_gap_ms'] for g in runs_gui):.0f}), its own CPU {gm('max_busy_ms'):.0f} ms; "
          f"peak RSS {gm('rss'):.0f} MB (max {max(g['rss'] for g in runs_gui):.0f}), `stats` {st_rss:.0f} MB")
    verdict("GUI Overview shown", gm("overview_ms") / 1000.0, 1, " s")
    verdict("GUI longest UI-thread gap (max)", max(g["max_gap_ms"] for g in runs_gui), 50, " ms")
    verdict("GUI peak RSS / stats peak RSS", gm("rss") / st_rss, 2)
    for sub in ("ls", "check"):
        if f"{sub} --json" in warm:
            print(f"  {'GUI peak RSS / ' + sub + ' peak RSS':<34} "
                  f"{gm('rss') / max(x for _, x in warm[sub + ' --json']):7.2f}x")
