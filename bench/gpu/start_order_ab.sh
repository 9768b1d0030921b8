#!/usr/bin/env bash
# A/B of the workers' start order (KILN_RETUNE_START) on a small re-tune, where start-up is most of
# the wall time: the fixture cache's ops, N rounds of 1 GPU and of all GPUs per order, interleaved.
# usage: bench/gpu/start_order_ab.sh KILN_CLI FIXTURE_TAR [ROUNDS] [ORDERS...]   (prints a table)
set -uo pipefail
cli="$1"; tar="$2"; rounds="${3:-5}"; shift 3 || shift $#
orders=("$@"); [ ${#orders[@]} -eq 0 ] && orders=(together pong ready)
if [ -z "${KILN_CUBLAS:-}" ]; then  # torch's wheel carries the cuBLAS the GPU machines have
  KILN_CUBLAS="$(find /opt/torch/.venv -name 'libcublas.so.*' 2>/dev/null | head -1)"; export KILN_CUBLAS
fi
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
w="$(mktemp -d)"; tar -xJf "$tar" -C "$w" || exit 2
root="$w/inductor"
"$cli" retune "$root" --list | tail -1
for r in $(seq 1 "$rounds"); do
  "$cli" retune "$root" --devices 0 --json > "$w/one_$r.json" 2>/dev/null
  for o in "${orders[@]}"; do
    start=${o%%/*}; preload=$([[ "$o" == */* ]] && echo "${o#*/}" || echo "")
    env KILN_RETUNE_START="$start" ${preload:+KILN_WORKER_CUBLAS_PRELOAD="$preload"} \
      "$cli" retune "$root" --devices all --json > "$w/all_${o//\//-}_$r.json" 2>/dev/null
  done
done
python3 - "$w" "$rounds" "${orders[@]}" <<'PY'
import json, statistics as st, sys
w, rounds, orders = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def load(name):
    runs = [json.load(open(f"{w}/{name}_{r}.json")) for r in range(1, rounds + 1)]
    return runs
def row(label, runs, base=None):
    walls = [x["wall_seconds"] for x in runs]
    ready = [[wk.get("ready_s", 0) for wk in x["timeline"]["workers"]] for x in runs]
    first = [min(r) for r in ready]; last = [max(r) for r in ready]; mean = [sum(r) / len(r) for r in ready]
    bad = sum(1 for x in runs for op in x["ops"] for c in op["choices"] for m in c.get("measured", []) if m.get("status") == "wrong")
    ok = sum(1 for x in runs for op in x["ops"] for c in op["choices"] for m in c.get("measured", []) if m.get("status") == "ok")
    ratio = f"{base / st.median(walls):.2f}x" if base else "1.00x"
    print(f"| {label} | {st.median(walls):.3f} ({', '.join(f'{v:.2f}' for v in walls)}) | {ratio} | "
          f"{st.median(first):.2f} | {st.median(mean):.2f} | {st.median(last):.2f} | {ok} ok, {bad} wrong |")
    return st.median(walls)
print("| run | wall s, median (all) | speed-up vs 1 GPU | first ready s | mean ready s | last ready s | outputs |")
print("|---|---|---|---|---|---|---|")
base = row("1 GPU", load("one"))
for o in orders:
    row(f"all GPUs, {o}", load("all_" + o.replace("/", "-")), base)
PY
rm -rf "$w"
