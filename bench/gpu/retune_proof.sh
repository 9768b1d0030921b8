#!/usr/bin/env bash
# The GPU proof of issue 30 (kiln-cli retune), in one call on a 4-GPU machine with torch:
#   1. a fresh max-autotune cache: a GPT-style block, forward and backward (retune_block.py), with
#      torch's AUTOTUNE lines kept (torch_stderr.log);
#   2. Kiln's inventory of it (retune --list --json): every Triton choice resolved to a binary;
#   3. Kiln's re-tune on 1 GPU and on 4 GPUs (wall times), and on the fixture cache;
#   4. faults (retune_faults.sh): an illegal address, a hang and wrong values cost one choice each;
#   5. retune_summary.py: fidelity against the times torch recorded in the same session, winners
#      and margins, wall-time ratios against torch's own autotuning, per-choice overhead.
# usage: bench/gpu/retune_proof.sh OUT_DIR   (KILN_CLI: a built kiln-cli beside its kiln-worker)
# env: KILN_PYTHON, KILN_PROOF_WORK (default /tmp/kiln-retune-proof), RETUNE_BLOCK_ARGS (retune_block.py's),
#      RETUNE_REPEATS (pairs of 1-GPU and all-GPU runs; median wall times; default 1), RETUNE_SKIP_FAULTS=1 (skip step 4), RETUNE_TORCH_TIMEOUT (seconds for torch's compile, default 300),
#      RETUNE_START_ORDERS (orders of the workers' starts to compare on all GPUs: together, pong, ready)
set -uo pipefail
out="${1:?usage: bench/gpu/retune_proof.sh OUT_DIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
work="${KILN_PROOF_WORK:-/tmp/kiln-retune-proof}"; rm -rf "$work"; mkdir -p "$work"
py="${KILN_PYTHON:-/opt/torch/.venv/bin/python}"
cli="${KILN_CLI:?set KILN_CLI to a kiln-cli beside its kiln-worker}"
if [ -z "${KILN_CUBLAS:-}" ]; then
  KILN_CUBLAS="$(find /opt/torch/.venv -name 'libcublas.so.*' 2>/dev/null | head -1)"
  [ -z "$KILN_CUBLAS" ] && KILN_CUBLAS="$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)"
  export KILN_CUBLAS
fi
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv; echo "cuBLAS: $KILN_CUBLAS";
  "$py" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"; } > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

cache="$work/cache"; mkdir -p "$cache"
t0=$(date +%s.%N)
TORCHINDUCTOR_CACHE_DIR="$cache" timeout "${RETUNE_TORCH_TIMEOUT:-300}" "$py" "$here/retune_block.py" ${RETUNE_BLOCK_ARGS:-} \
  > "$out/torch_stdout.log" 2> "$out/torch_stderr.log"
echo "torch compile rc=$? in $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN{print a-b}') s"
grep -c "AUTOTUNE benchmarking takes" "$out/torch_stderr.log"

"$cli" retune "$cache" --list --json > "$out/inventory.json" 2> "$out/inventory.err"
"$cli" retune "$cache" --list > "$out/inventory.txt" 2>&1
# RETUNE_REPEATS pairs (1 GPU, then all), alternating; the summary takes the median wall times and
# the first pair's reports (run1.json, run4.json); the others are kept as runN_R.json.
# RETUNE_START_ORDERS (e.g. "pong together ready pong/after-init"): each pair runs all GPUs once per
# order of the workers' starts (KILN_RETUNE_START, and /PRELOAD for KILN_WORKER_CUBLAS_PRELOAD); the
# first order is the one summarised, the others are kept as run4[_R]_ORDER.json, medians in walls.txt.
orders=(${RETUNE_START_ORDERS:-default})
walls1=(); walls4=(); declare -A worder
for r in $(seq 1 "${RETUNE_REPEATS:-1}"); do
  sfx=$([ "$r" -eq 1 ] && echo "" || echo "_$r")
  t0=$(date +%s.%N)
  "$cli" retune "$cache" --devices 0 --json > "$out/run1$sfx.json" 2> "$out/run1$sfx.err"
  walls1+=("$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN{print a-b}')")
  line="pair $r: 1 GPU ${walls1[-1]} s"
  for o in "${orders[@]}"; do
    osfx=$([ "$o" = "${orders[0]}" ] && echo "" || echo "_$o")
    t0=$(date +%s.%N)
    osfx=${osfx//\//-}
    # ORDER/PRELOAD also sets the workers' cuBLAS preload (KILN_WORKER_CUBLAS_PRELOAD: early, after-init, off).
    start=${o%%/*}; preload=$([[ "$o" == */* ]] && echo "${o#*/}" || echo "")
    env ${start:+$([ "$start" = default ] || echo KILN_RETUNE_START="$start")} ${preload:+KILN_WORKER_CUBLAS_PRELOAD="$preload"} \
      "$cli" retune "$cache" --devices all --json > "$out/run4$sfx$osfx.json" 2> "$out/run4$sfx$osfx.err"
    w="$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN{print a-b}')"
    [ "$o" = "${orders[0]}" ] && walls4+=("$w")
    worder[$o]="${worder[$o]:-} $w"
    line="$line, all GPUs ($o) $w s"
  done
  # Each pair as it ends, so a call cut short by its time limit still returns what it measured.
  echo "$line" | tee -a "$out/walls_progress.txt"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
wall1=$(median "${walls1[@]}"); wall4=$(median "${walls4[@]}")
echo "wall times, 1 GPU: ${walls1[*]} (median $wall1); all GPUs: ${walls4[*]} (median $wall4)" | tee "$out/walls.txt"
for o in "${orders[@]}"; do
  m=$(median ${worder[$o]}); echo "all GPUs, start order $o:${worder[$o]} (median $m; speed-up $(awk -v a="$wall1" -v b="$m" 'BEGIN{printf "%.2f", a/b}')x)" | tee -a "$out/walls.txt"
done
"$cli" retune "$cache" --devices 0 --op addmm > "$out/run1_addmm.txt" 2>&1
frc=0
[ -z "${RETUNE_SKIP_FAULTS:-}" ] && { echo "== faults"; bash "$here/retune_faults.sh" "$cli" "${FIXTURE_TAR:-$here/../../tests/data/inductor-h100-torch2.11.tar.xz}" "$out" \
  | tee "$out/faults_summary.txt"; frc=${PIPESTATUS[0]}; }
"$py" "$here/retune_summary.py" "$out/inventory.json" "$out/run1.json" "$out/run4.json" "$out/torch_stderr.log" \
  "$wall1" "$wall4" | tee "$out/summary.md"
rc=${PIPESTATUS[0]}
[ "$frc" -ne 0 ] && rc=1
tar -C "$work" -czf "$out/cache_autotune_logs.tgz" cache/kiln 2>/dev/null
exit $rc
