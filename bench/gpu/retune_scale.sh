#!/usr/bin/env bash
# Issue 40 item 4: 1 GPU against every GPU of the machine, and the overhead per choice, on the cache
# that retune_loop.sh's torch phase made (build-gpu/loop/c0: a real 22-op max-autotune model) with the
# kiln-cli it built (RETUNE_CACHE and KILN_CLI name others). Pairs (1 GPU, all GPUs) alternated RETUNE_REPEATS times (default 3), for each
# statistic: torch's (the default; each choice's budget ~25 ms of GPU time) and do_bench's median
# (25 ms warm-up and 100 ms of runs a choice, the first round's workload); medians of the walls.
# usage: bash bench/gpu/retune_scale.sh OUT_DIR     (on the GPU host, from the repo root)
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:?OUT_DIR}"
. "$src/bench/gpu/proof_lib.sh"
w="$src/build-gpu/loop"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
report="$out/scale.md"; : > "$report"; failed=0; proof_name=retune_scale
proof_python
cache="${RETUNE_CACHE:-$w/c0}"; cli="${KILN_CLI:-$(cat "$w/cli" 2> /dev/null)}"
[ -d "$cache" ] && [ -x "$cli" ] || die "no torch phase here: run retune_loop.sh torch first (or set RETUNE_CACHE and KILN_CLI)" 2
n="$(nvidia-smi -L | wc -l)"
# RETUNE_START_ORDERS="together pong": extra all-GPU runs with workers started that way (the default waits
# for the previous worker to be ready), as all_together, all_pong.
extra=""; for o in ${RETUNE_START_ORDERS:-}; do extra="$extra all_$o"; done
say "# issue 40 item 4 ($(date -u +%FT%TZ), $n x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
for stat in torch median; do
  for r in $(seq 1 "${RETUNE_REPEATS:-3}"); do
    for d in 0 all $extra; do
      s=$(date +%s%N)
      KILN_RETUNE_START="${d#all_}" "$cli" retune "$cache" --devices "${d%%_*}" --statistic "$stat" --json \
        > "$w/scale_${stat}_${d}_$r.json" 2> /dev/null
      awk -v a="$s" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }' > "$w/scale_${stat}_${d}_$r.wall"
    done
  done
done
"$py" - "$w" "${RETUNE_REPEATS:-3}" "$n" $extra <<'PY' | tee -a "$report"
import json, statistics, sys
w, reps, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
extra = sys.argv[4:]
ok = True
for stat in ("torch", "median"):
    walls = {d: [float(open(f"{w}/scale_{stat}_{d}_{r}.wall").read()) for r in range(1, reps + 1)] for d in ("0", "all")}
    runs = {d: [json.load(open(f"{w}/scale_{stat}_{d}_{r}.json")) for r in range(1, reps + 1)] for d in ("0", "all")}
    speed = [a / b for a, b in zip(walls["0"], walls["all"])]
    ov, kern, nch = [], 0.0, 0
    for run in runs["0"]:
        for op in run["ops"]:
            for c in op["choices"]:
                for m in c.get("measured", []):
                    if m.get("status") == "ok":
                        ov.append(1000 * (m["wall_seconds"] - m["kernel_seconds"]))
                        kern += m["kernel_seconds"]; nch += 1
    workers = runs["all"][0].get("timeline", {}).get("workers", [])
    ready = ", ".join(f"{x['device']} {x.get('ready_s', 0):.2f}" for x in workers)
    print(f"## statistic {stat}")
    print(f"wall (kiln-cli, end to end), 1 GPU: {', '.join(f'{x:.2f}' for x in walls['0'])} s, median {statistics.median(walls['0']):.2f} s; "
          f"{n} GPUs: {', '.join(f'{x:.2f}' for x in walls['all'])} s, median {statistics.median(walls['all']):.2f} s")
    print(f"speed-up per pair: {', '.join(f'{x:.2f}x' for x in speed)}, median {statistics.median(speed):.2f}x")
    print(f"choices measured per 1-GPU run: {nch // reps}; kernel time {kern / reps:.2f} s a run; "
          f"overhead beyond the kernel's runs per choice: median {statistics.median(ov):.3f} ms, mean {statistics.mean(ov):.3f} ms")
    print(f"workers ready (s from the start, {n}-GPU run 1): {ready}")
    for e in extra:
        we = [float(open(f"{w}/scale_{stat}_{e}_{r}.wall").read()) for r in range(1, reps + 1)]
        sp = [a / b for a, b in zip(walls["0"], we)]
        print(f"{n} GPUs, workers started {e[4:]}: {', '.join(f'{x:.2f}' for x in we)} s, median {statistics.median(we):.2f} s; "
              f"speed-up per pair {', '.join(f'{x:.2f}x' for x in sp)}, median {statistics.median(sp):.2f}x")
    if stat == "torch":
        ok &= statistics.median(ov) <= 0.5
print(("ok    " if ok else "FAIL  ") + "overhead per choice <= 0.5 ms (median)")
sys.exit(0 if ok else 1)
PY
failed=$?
tar -C "$w" -cJf "$out/scale_json.tar.xz" $(cd "$w" && ls scale_*) 2> /dev/null
exit $failed
