#!/usr/bin/env python3
"""Predicted vs actual, per graph: `kiln-cli portable ROOT --target FP --json` (made BEFORE a run that
used ROOT) against what torch did in that run (its TORCH_TRACE cache events, and the counters in
run_*.json).

  compare_prediction.py --portable P.json --misses M.json --trace TRACE_DIR [--runs RUN.json ...] [--json]

M.json is `kiln-cli misses TRACE_DIR --root PRISTINE --json` with PRISTINE a copy of ROOT as it was
before the run (it names, for each FX miss, the cached entry whose key is closest and the components
that differ). Rules, per FX cache event of the trace:
  hit  key K      the prediction for the entries under K must be "hit"
  miss key K      entries under K existed before the run: the key was computed again (the environment
                  matched; the guards rejected the entry): the prediction for them must be "hit"
  miss key K      no entry under K: the closest cached entry's prediction must be "miss", and the
                  components the prediction names must be the components that differ per the trace;
                  when the closest entry differs only in components the environment does not decide
                  (not in the target fingerprint), the graph itself is new: reported, not counted
AOTAutograd events: hits must be predicted "hit"; a miss must not have a predicted "hit" entry under its key.
Counters: the trace's FX / AOT hit and miss events must equal the run_*.json counters.
Exit 0 when nothing disagrees, 1 otherwise, 2 on bad input.
"""
import argparse
import glob
import json
import os
import re
import sys

HEADER = re.compile(r"^[VIWEC]\d{4} \S+ \d+ \S+\] (\{.*\})$")


def cache_events(trace_dir):
    """(cache, state, key, log:line) for every fx_graph / aotautograd hit|miss artifact, in log order."""
    files = sorted(p for p in glob.glob(os.path.join(trace_dir, "**", "*"), recursive=True) if os.path.isfile(p))
    out = []
    for path in files:
        head, payload, lineno = None, [], 0
        def flush():
            if head is None:
                return
            name = head.get("artifact", {}).get("name", "")
            m = re.match(r"^(fx_graph|aotautograd)_cache_(hit|miss)$", name)
            if m:
                p = json.loads("\n".join(payload))
                out.append({"cache": m.group(1), "state": p.get("cache_state", m.group(2)), "key": p.get("key"),
                            "where": f"{os.path.basename(path)}:{lineno}"})
        with open(path, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if line.startswith("\t"):
                    payload.append(line[1:])
                    continue
                m = HEADER.match(line)
                if m:
                    flush()
                    head, payload, lineno = json.loads(m.group(1)), [], i
        flush()
    return out


def counters(run_files):
    total = {"fx_hit": 0, "fx_miss": 0, "aot_hit": 0, "aot_miss": 0}
    for path in run_files:
        for sc in json.load(open(path))["scenarios"].values():
            c = sc.get("counters", {})
            total["fx_hit"] += c.get("inductor", {}).get("fxgraph_cache_hit", 0)
            total["fx_miss"] += c.get("inductor", {}).get("fxgraph_cache_miss", 0)
            total["aot_hit"] += c.get("aot_autograd", {}).get("autograd_cache_hit", 0)
            total["aot_miss"] += c.get("aot_autograd", {}).get("autograd_cache_miss", 0)
    return total


def compare(portable, misses, events):
    # The components the target's environment decides (a difference in any other is the graph's own).
    env_names = {c["name"] for c in portable["target"]["components"]} | {"pickle_protocol", "example_inputs[*].device"}
    by_key, by_path = {}, {}
    for e in portable["entries"]:
        if e["kind"] in ("fxgraph", "aotautograd"):
            by_key.setdefault(e["key"], []).append(e)
            by_path[e["path"]] = e
    closest = {}
    for m in misses["events"]:
        if m["state"] == "miss":
            closest[(os.path.basename(m["log"]), m["line"])] = m.get("closest")
    rows = []
    for ev in events:
        row = {"cache": ev["cache"], "state": ev["state"], "key": ev["key"], "where": ev["where"]}
        cached = by_key.get(ev["key"], [])
        if ev["state"] == "hit":
            predicted = sorted({e["verdict"] for e in cached}) or ["(no entry before the run)"]
            row.update(predicted="/".join(predicted), outcome="agree" if predicted == ["hit"] else "DISAGREE")
        elif cached:
            ok = all(e["verdict"] == "hit" for e in cached)
            row.update(predicted="/".join(sorted({e["verdict"] for e in cached})),
                       outcome="agree (guard miss: key predicted)" if ok else "DISAGREE")
        elif ev["cache"] == "aotautograd":
            row.update(predicted="(no entry under its key)", outcome="agree")
        else:
            name, line = ev["where"].rsplit(":", 1)
            c = closest.get((name, int(line)))
            if not c:
                row.update(predicted="(nothing cached to compare)", outcome="new graph")
            else:
                e = by_path.get(c["entry"])
                predicted = sorted(d["component"] for d in e["differs"]) if e else []
                actual = sorted(c["differing"])
                row.update(entry=c["entry"], predicted=(e["verdict"] if e else "?") + " " + ",".join(predicted),
                           actual=",".join(actual))
                graph_only = set(actual) - set(predicted)
                if e and e["verdict"] == "miss" and predicted == actual:
                    row["outcome"] = "agree"
                elif e and e["verdict"] == "miss" and set(predicted) < set(actual) and not graph_only & env_names:
                    row["outcome"] = "agree (miss; the graph differs too)"
                elif e and e["verdict"] == "hit" and not set(actual) & env_names:
                    row["outcome"] = "new graph"
                else:
                    row["outcome"] = "DISAGREE"
        rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--portable", required=True)
    ap.add_argument("--misses", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--runs", nargs="*", default=[])
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    try:
        portable, misses = json.load(open(a.portable)), json.load(open(a.misses))
        events = cache_events(a.trace)
    except (OSError, ValueError, KeyError) as e:
        print(f"compare_prediction: {e}", file=sys.stderr)
        return 2
    rows = compare(portable, misses, events)
    seen = {"fx_hit": 0, "fx_miss": 0, "aot_hit": 0, "aot_miss": 0}
    for r in rows:
        seen[("fx" if r["cache"] == "fx_graph" else "aot") + "_" + r["state"]] += 1
    counts = counters(a.runs) if a.runs else None
    disagree = [r for r in rows if r["outcome"] == "DISAGREE"]
    counters_ok = counts is None or counts == seen
    if a.json:
        print(json.dumps({"rows": rows, "trace_events": seen, "counters": counts, "disagreements": len(disagree),
                          "counters_match": counters_ok}, indent=1))
    else:
        print(f"target: {portable['summary']['target']}   root: {portable['root']}")
        print(f"| {'event':<22} | {'key':<14} | {'predicted':<48} | {'per the trace':<40} | outcome")
        print(f"| {'-'*22} | {'-'*14} | {'-'*48} | {'-'*40} | -------")
        for r in rows:
            ev = f"{r['cache']} {r['state']}"
            print(f"| {ev:<22} | {r['key'][:12] + '…':<14} | {r['predicted'][:48]:<48} | {r.get('actual', '')[:40]:<40} | {r['outcome']}")
        agree = sum(r["outcome"].startswith("agree") for r in rows)
        print(f"\n{agree} of {len(rows)} cache events agree with the prediction, {len(disagree)} disagree, "
              f"{sum(r['outcome'] == 'new graph' for r in rows)} new graphs")
        print(f"trace events {seen}" + (f"; run_*.json counters {counts}: {'match' if counters_ok else 'DIFFER'}" if counts else ""))
    return 0 if not disagree and counters_ok else 1


if __name__ == "__main__":
    sys.exit(main())
