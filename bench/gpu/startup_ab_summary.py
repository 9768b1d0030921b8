"""The table of bench/gpu/startup_ab.sh from its work folder: per case, the measured saving (A's first
calls minus B's, paired by round, median) against what `kiln-cli startup` claimed for the case's
remedy on A's trace. Rounds whose A or B did not finish are left out and counted.
usage: python startup_ab_summary.py WORK_DIR CASE...   (writes WORK_DIR/verdict: ok or bad)
"""
import json
import statistics
import sys

w, cases = sys.argv[1], sys.argv[2:]
# The remedies each case's claim names (core/startup: causes.cpp, startup_report.cpp's miss remedies).
REMEDY = {"fx_miss": ("a cache warmed on this device", "a warm cache shipped with the job", "a hit",
                      "an entry for these sizes cached"),
          "triton_cache": ("the Triton cache kept",), "best_config": ("the .best_config files kept",),
          "cpp_libs": ("the C++ libraries kept",), "dynamic": ("the dimension marked dynamic",),
          "vec_isa": ("TORCHINDUCTOR_VEC_ISA_OK=1",)}


def load(p):
    try:
        with open(p) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def claim_of(k, case):
    s, kinds, texts = 0.0, set(), []
    for proc in (k or {}).get("processes", []):
        for av in proc.get("avoidable", []):
            if av.get("remedy") in REMEDY[case]:
                s += av["seconds"]
                kinds.add("inferred" if av.get("inferred") else "measured")
                texts.append(f"{av['seconds']:.2f} s {'inferred' if av.get('inferred') else 'would go with'} "
                             f"{av['remedy']} ({av['what']})")
    return s, kinds, texts


print("\n| case | rounds | A first calls s | B first calls s | measured saving s | Kiln's claim s | measured or "
      "inferred | Kiln / measured | Kiln's text |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |")
bad, none = [], []
for c in cases:
    pairs = []
    for r in range(1, 100):
        a, b = load(f"{w}/{c}_A_{r}.json"), load(f"{w}/{c}_B_{r}.json")
        if a is None and b is None and load(f"{w}/{c}_A_{r + 1}.json") is None:
            break
        if a and b:
            pairs.append((r, a, b))
    if not pairs:
        print(f"| {c} | 0 | no round finished | | | | | | |")
        continue
    saving = statistics.median(a["first_calls_s"] - b["first_calls_s"] for _, a, b in pairs)
    claims = [claim_of(load(f"{w}/{c}_A_{r}.kiln.json"), c) for r, _, _ in pairs]
    claim = statistics.median(x[0] for x in claims)
    kinds = set().union(*(x[1] for x in claims))
    kind = "/".join(sorted(kinds)) or "no claim"
    texts = [t for x in claims for t in x[2]]
    ratio = claim / saving if saving > 0 else float("nan")
    if kind == "measured" and not 0.8 <= ratio <= 1.2:
        bad.append(c)
    if not kinds:
        none.append(c)
    print(f"| {c} | {len(pairs)} | {statistics.median(a['first_calls_s'] for _, a, _ in pairs):.2f} "
          f"| {statistics.median(b['first_calls_s'] for _, _, b in pairs):.2f} | {saving:.2f} | {claim:.2f} | {kind} "
          f"| {ratio:.2f} | {texts[0][:150] if texts else '(no claim)'} |")
# The same saving net of the module-loading phase, where both sides hold it at length: in torch 2.11
# that is the vector-ISA probes (a Python process importing torch per ISA), which run in A and B alike
# and move by a second between processes, more than some remedies save.
for c in cases:
    net = []
    for r in range(1, 100):
        a, b = load(f"{w}/{c}_A_{r}.json"), load(f"{w}/{c}_B_{r}.json")
        ka, kb = load(f"{w}/{c}_A_{r}.kiln.json"), load(f"{w}/{c}_B_{r}.kiln.json")
        if not (a and b and ka and kb):
            if a is None and b is None:
                break
            continue
        ph = lambda k: sum(x["seconds"] for p in k["processes"] for cc in p.get("compiles", []) for x in cc.get("phases", [])
                           if x["name"] == "loading the compiled module")
        if ph(ka) > 5 and ph(kb) > 5:
            net.append(((a["first_calls_s"] - ph(ka)) - (b["first_calls_s"] - ph(kb)), claim_of(ka, c)[0]))
    if net:
        s_, c_ = statistics.median(x[0] for x in net), statistics.median(x[1] for x in net)
        print(f"{c}: net of the module-loading phase (A and B alike) the A/B saved {s_:.2f} s; Kiln claims {c_:.2f} s "
              f"({c_ / s_:.2f})" if s_ > 0 else f"{c}: net of the module-loading phase the A/B saved nothing")
print(f"\nmeasured claims outside 20 % of the A/B saving: {', '.join(bad) or 'none'}; "
      f"cases with no claim: {', '.join(none) or 'none'}")
with open(f"{w}/verdict", "w") as fh:
    fh.write("ok" if not bad else "bad")
