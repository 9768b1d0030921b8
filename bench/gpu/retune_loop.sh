#!/usr/bin/env bash
# Issue 40 on one GPU, in two device calls on one warm machine (each under the 10-minute limit):
#   torch    torch max-autotunes bench/gpu/model_cache.py into a fresh cache C0 on a warmed GPU
#            (AUTOTUNE tables on stderr) after kiln-cli and kiln-worker are built; then
#            `kiln-cli retune C0 --json` and retune_vs_torch.py: Kiln's times against torch's.
#   compare  the torch phase's retune and comparison again on its kept C0 (when that phase ran out of time)
#   handback the same model compiled by torch from an empty cache holding only what Kiln wrote:
#            C1 = `handback --from run.json --write` (the timing cache), C2 = `--pin` (the lookup
#            table alone): AUTOTUNE tables and compile time of each; then the step time of the
#            model compiled with Kiln's hand-back (C1) against torch's own autotune (C0), runs
#            alternated, each 200 steps (CUDA events, median).
# usage: bash bench/gpu/retune_loop.sh torch|compare|capture|handback OUT_DIR   (on the GPU host, from the repo root)
# Scratch in build-gpu/ (ignored, kept between calls while the machine stays warm).
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
phase="${1:?torch|handback}"; out="${2:?OUT_DIR}"
. "$src/bench/gpu/proof_lib.sh"
w="$src/build-gpu/loop"; mkdir -p "$out" "$w"; out="$(cd "$out" && pwd)"
report="$out/$phase.md"; : > "$report"; failed=0; proof_name="retune_loop $phase"
proof_python
export PYTHONUNBUFFERED=1 TORCHINDUCTOR_FX_GRAPH_CACHE=1 TORCHINDUCTOR_AUTOGRAD_CACHE=1
gpu="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
model() {  # model CACHE_DIR NAME [ARGS...]: model_cache.py with that cache, stderr kept
  local cache="$1" name="$2"; shift 2
  TORCHINDUCTOR_CACHE_DIR="$cache" env ${TRACE:+TORCH_TRACE="$w/$name.trace"} ${MODEL_CPUS:+taskset -c "$MODEL_CPUS"} timeout "${MODEL_TIMEOUT:-540}" "$py" "$src/bench/gpu/model_cache.py" --out "$w/$name.json" "$@" \
    > "$w/$name.stdout" 2> "$w/$name.stderr"
}
tables() { grep -c '^AUTOTUNE' "$1" || true; }
jf() { "$py" -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }

if [ "$phase" = torch ]; then
  rm -rf "$w"; mkdir -p "$w"
  say "# issue 40, torch phase ($(date -u +%FT%TZ), $gpu, $("$py" -c 'import torch; print("torch", torch.__version__)'))"
  # Built first, not beside torch: torch launches each benchmarked kernel from Python, so a busy host
  # would show in its event pairs.
  ( proof_cli "$src/build-gpu/cli" kiln-cli kiln-worker > "$w/build.out" 2>&1; echo "$cli" > "$w/cli" )
  cli="$(cat "$w/cli" 2>/dev/null)"; [ -x "$cli" ] || { cat "$w/build.out" >&2; die "no kiln-cli built" 2; }
  # Traced (C1's compile is traced too): `kiln-cli startup` on this trace claims the seconds that
  # `retune --write` would save, and C1's compile measures what it saves (issue 41's A/B).
  TRACE=1 model "$w/c0" torch --warm-seconds 15 ${LOOP_BENCH_TRACE:+--bench-trace "$w/bench_trace.json"} \
    ${LOOP_BENCH_AB:+--bench-ab}; rc=$?
  say "torch's own autotune (C0, GPU warmed 15 s first): rc=$rc, compile $(jf "$w/torch.json" "['total_seconds']") s, \
$(tables "$w/torch.stderr") AUTOTUNE tables"
  cp "$w/torch.stderr" "$out/torch_stderr.log"; cp "$w/torch.json" "$out/torch_run.json"
  [ -s "$w/bench_trace.json" ] && cp "$w/bench_trace.json" "$out/"
  "$cli" retune "$w/c0" --json > "$w/run.json" 2> "$w/retune.stderr"; rc=$?
  say "kiln-cli retune C0 --json: rc=$rc (1: a choice failed), $(jf "$w/run.json" "['wall_seconds']") s by its own count"
  cp "$w/run.json" "$out/run.json"
  "$py" "$src/bench/gpu/retune_vs_torch.py" "$w/run.json" "$w/torch.stderr" ${LOOP_BENCH_TRACE:+"$w/bench_trace.json"} |
    tee -a "$report" || failed=1
  "$cli" startup "$w/torch.trace" --json > "$w/startup_c0.json" 2> "$w/startup_c0.err"
  cp "$w/startup_c0.json" "$out/"
  [ "${LOOP_EXTRA:-1}" = 1 ] || exit $failed
  # The same on the legacy default stream (torch's), and the median statistic, for comparison.
  KILN_BENCH_STREAM=legacy "$cli" retune "$w/c0" --json > "$w/run_legacy.json" 2>/dev/null
  say "\n## the same on the legacy default stream (KILN_BENCH_STREAM=legacy)"
  "$py" "$src/bench/gpu/retune_vs_torch.py" "$w/run_legacy.json" "$w/torch.stderr" | tee -a "$report"
  "$cli" retune "$w/c0" --json --statistic median > "$w/run_median.json" 2>/dev/null
  say "\n## --statistic median"
  "$py" "$src/bench/gpu/retune_vs_torch.py" "$w/run_median.json" "$w/torch.stderr" | tee -a "$report"
  tar -C "$w" -cJf "$out/runs.tar.xz" run_legacy.json run_median.json retune.stderr
  exit $failed
fi

if [ "$phase" = compare ]; then  # the torch phase's retune and comparison again, on its kept C0 and trace
  cli="$(cat "$w/cli")"; [ -d "$w/c0" ] || die "no torch phase here (the machine was given back?)" 2
  say "# issue 40, compare phase ($(date -u +%FT%TZ), $gpu)"
  "$cli" retune "$w/c0" --json > "$w/run.json" 2> "$w/retune.stderr"
  say "kiln-cli retune C0 --json: rc=$?, $(jf "$w/run.json" "['wall_seconds']") s by its own count"
  cp "$w/run.json" "$out/run.json"; [ -s "$w/bench_trace.json" ] && cp "$w/bench_trace.json" "$out/"
  "$py" "$src/bench/gpu/retune_vs_torch.py" "$w/run.json" "$w/torch.stderr" ${LOOP_BENCH_TRACE:+"$w/bench_trace.json"} |
    tee -a "$report" || failed=1
  exit $failed
fi
[ -s "$w/run.json" ] && [ -d "$w/c0" ] || die "no torch phase here (the machine was given back?): run the torch phase first" 2
cli="$(cat "$w/cli")"
if [ "$phase" = capture ]; then  # the CUDA-graph capture of the step, tried alone (a warm process of C0)
  say "# issue 40, capture check ($(date -u +%FT%TZ), $gpu)"
  model "$w/c0" capture_check --steps 30
  say "capture check: $(jf "$w/capture_check.json" ".get('graph_step_ms_median', 'no graph')") ms replayed \
($(jf "$w/capture_check.json" ".get('graph_error', 'captured')")), warm compile $(jf "$w/capture_check.json" "['total_seconds']") s"
  tail -20 "$w/capture_check.stderr"
  exit 0
fi
say "# issue 40, handback phase ($(date -u +%FT%TZ), $gpu)"
rm -rf "$w/c1" "$w/c2"; mkdir -p "$w/c1" "$w/c2"
"$cli" handback "$w/c1" --from "$w/run.json" --write --python "$py" > "$out/handback_write.txt" 2>&1
say "handback --write: rc=$? ($(grep -m1 'complete op' "$out/handback_write.txt"))"
# The pin reads each Triton winner's template kwargs from its benchmark module: in C0.
"$cli" handback "$w/c0" --from "$w/run.json" --pin "$w/c2/table.json" --python "$py" > "$out/handback_pin.txt" 2>&1
say "handback --pin: rc=$? ($(grep -m1 'pinned' "$out/handback_pin.txt"))"
TRACE=1 model "$w/c1" handback; say "compile with Kiln's timing cache alone (C1): rc=$?, $(jf "$w/handback.json" "['total_seconds']") s, \
$(tables "$w/handback.stderr") AUTOTUNE tables (torch's own: $(jf "$w/torch.json" "['total_seconds']") s, $(tables "$w/torch.stderr"))"
cp "$w/handback.stderr" "$out/handback_stderr.log"
"$cli" startup "$w/handback.trace" --json > "$out/startup_c1.json" 2>/dev/null
"$py" - "$w/startup_c0.json" "$w/torch.json" "$w/handback.json" <<'PY' | tee -a "$report"
import json, sys
k, a, b = (json.load(open(p)) for p in sys.argv[1:])
claim = sum(av["seconds"] for p in k["processes"] for av in p["avoidable"] if av["remedy"] == "kiln-cli retune --write")
saving = a["total_seconds"] - b["total_seconds"]
print(f"retune --write A/B (issue 41): Kiln's startup on torch's cold compile claims {claim:.1f} s would go with "
      f"kiln-cli retune --write; measured: {a['total_seconds']:.1f} s -> {b['total_seconds']:.1f} s = {saving:.1f} s saved "
      f"(Kiln / measured {claim / saving:.2f})")
PY
check "after handback --write torch prints 0 AUTOTUNE tables" "[ $(tables "$w/handback.stderr") = 0 ]"
model "$w/c2" pin --pin "$w/c2/table.json"; say "compile with Kiln's lookup table alone (C2): rc=$?, \
$(jf "$w/pin.json" "['total_seconds']") s, $(tables "$w/pin.stderr") AUTOTUNE tables"
cp "$w/pin.stderr" "$out/pin_stderr.log"
check "with the --pin table alone torch prints 0 AUTOTUNE tables" "[ $(tables "$w/pin.stderr") = 0 ]"
# Step time: warm processes (FX cache hits), alternated, 200 steps each.
rounds="${LOOP_ROUNDS:-3}"
for round in $(seq 1 "$rounds"); do
  cs="c0 c1"; [ $((round % 2)) = 0 ] && cs="c1 c0"  # ABBA: neither always runs first
  for c in $cs; do
    # LOOP_CPUS pins both variants' step processes to the same cores (the launched step is the host's time).
    MODEL_CPUS="${LOOP_CPUS:-}" model "$w/$c" "step_${c}_$round" --steps 200 --profile 50 --host-profile "${LOOP_HOST_PROFILE:-0}"
    say "round $round $c: step median $(jf "$w/step_${c}_$round.json" "['step_ms_median']") ms launched, \
$(jf "$w/step_${c}_$round.json" ".get('graph_step_ms_median', 'no graph')") ms replayed, $(tables "$w/step_${c}_$round.stderr") AUTOTUNE tables"
  done
done
"$py" - "$w" "$rounds" <<'PY' | tee -a "$report"
import json, statistics, sys
w, R = sys.argv[1], range(1, int(sys.argv[2]) + 1)
runs = {c: [json.load(open(f"{w}/step_{c}_{r}.json")) for r in R] for c in ("c0", "c1")}
for key, what in (("step_ms_median", "launched from Python"), ("graph_step_ms_median", "replayed from a CUDA graph")):
    if not all(key in j for v in runs.values() for j in v):
        print(f"step time {what}: not measured ({runs['c0'][0].get('graph_error', '')})")
        continue
    med = {c: statistics.median(j[key] for j in v) for c, v in runs.items()}
    ratio = med["c1"] / med["c0"]
    print(f"step time {what}, median of {len(R)} alternated runs of 200 steps: torch's own autotune {med['c0']:.4f} ms, "
          f"Kiln's hand-back {med['c1']:.4f} ms, ratio {ratio:.4f}")
    # The graph replay is the GPU's time, which the kernels chosen decide; the launched step, the host's.
    open(f"{w}/step_ratio", "w").write(f"{ratio:.4f}")
PY
# The GPU's share: each kernel's device time per step (torch.profiler, 50 steps a run), apart from
# the host's launch time, which bounds a step launched from Python.
"$py" - "$w" "$rounds" <<'PY' | tee -a "$report"
import json, statistics, sys
w, R = sys.argv[1], range(1, int(sys.argv[2]) + 1)
prof = {c: [json.load(open(f"{w}/step_{c}_{r}.json")).get("profile") for r in R] for c in ("c0", "c1")}
if not all(p for v in prof.values() for p in v):
    print("GPU time per step: not measured"); sys.exit(0)
g = {c: statistics.median(p["gpu_us_per_step"] for p in v) for c, v in prof.items()}
n = {c: statistics.median(p["launches_per_step"] for p in v) for c, v in prof.items()}
print(f"GPU kernel time per step (profiler, median of {len(R)} runs): torch's own {g['c0']:.1f} us, Kiln's {g['c1']:.1f} us "
      f"(ratio {g['c1'] / g['c0']:.4f}); kernels launched per step {n['c0']:.1f} / {n['c1']:.1f}")
per = {c: {} for c in prof}
for c, v in prof.items():
    for p in v:
        for name, calls, us in p["kernels"]:
            per[c].setdefault(name, []).append((calls, us))
rows = []
for name in set(per["c0"]) | set(per["c1"]):
    a = statistics.median(us for _, us in per["c0"].get(name, [(0, 0)]))
    b = statistics.median(us for _, us in per["c1"].get(name, [(0, 0)]))
    rows.append((b - a, name, a, b))
rows.sort(key=lambda r: -abs(r[0]))
print("kernels whose GPU time per step differs most (us per step, torch's own -> Kiln's):")
for d, name, a, b in rows[:25]:
    print(f"  {d:+8.2f}  {a:8.2f} -> {b:8.2f}  {name[:100]}")
PY
check "Kiln's hand-back is not slower than torch's own autotune (<= 1.01x; the graph replay's ratio where measured)" \
  "$py -c 'import sys; sys.exit(float(open(\"$w/step_ratio\").read()) > 1.01)'"
# Where the winners differ, both times (Kiln's run measured every choice).
"$py" - "$w/run.json" "$w/torch.stderr" <<'PY' | tee -a "$report"
import json, sys
run = json.load(open(sys.argv[1]))
diff = 0
for op in run["ops"]:
    meas = {c["name"]: m["ms"] for c in op["choices"] for m in c.get("measured", []) if m["status"] == "ok" and m.get("ms")}
    rec = {c["name"]: c["recorded_ms"] for c in op["choices"] if c.get("recorded_ms") is not None}
    if not meas or not rec: continue
    k, t = min(meas, key=meas.get), min(rec, key=rec.get)
    if k != t:
        diff += 1
        print(f"  {op['op']} {op['inputs'][:60]}: torch's winner {t[:24]} (torch {rec[t]:.4f}, Kiln {meas.get(t, float('nan')):.4f} ms), "
              f"Kiln's {k[:24]} (torch {rec.get(k, float('nan')):.4f}, Kiln {meas[k]:.4f} ms)")
print(f"winners that differ: {diff} of {len(run['ops'])} ops")
PY
tar -C "$w" -cJf "$out/loop_json.tar.xz" --exclude='c0' --exclude='c1' --exclude='c2' --exclude='*.trace' . 2>/dev/null
say "$([ $failed = 0 ] && echo PASSED || echo FAILED)"
exit $failed
