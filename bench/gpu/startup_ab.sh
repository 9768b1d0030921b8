#!/usr/bin/env bash
# Issue 41 item 3: every "X s would go with Y" that `kiln-cli startup` prints, checked by an A/B run.
# Each case is a small workload with one known cause (bench/gpu/startup_ab.py): A has the cause, B
# the remedy. Rounds alternate A and B, each a fresh process on a fresh copy of a prepared cache,
# under TORCH_TRACE; the measured saving is A's first calls minus B's (wall, median of rounds);
# Kiln's figure is what `kiln-cli startup A_TRACE --json` claims for that remedy. Goal: Kiln's
# figure within 20 % of the measured saving. An inferred cause (vec_isa) is shown beside its A/B too.
# usage: bash bench/gpu/startup_ab.sh OUT_DIR [ROUNDS] [CASES...]   (on the GPU host, repo root)
#   KILN_CLI: a kiln-cli to use (default: build-gpu/cli, built here if missing)
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:?OUT_DIR}"; rounds="${2:-2}"; shift 2 || shift $#
cases=("$@"); [ ${#cases[@]} -eq 0 ] && cases=(fx_miss triton_cache best_config cpp_libs dynamic vec_isa)
. "$src/bench/gpu/proof_lib.sh"
w="$src/build-gpu/startup_ab"; rm -rf "$w"; mkdir -p "$out" "$w"; out="$(cd "$out" && pwd)"
report="$out/startup_ab.md"; : > "$report"; failed=0; proof_name="startup_ab"
proof_python
export PYTHONUNBUFFERED=1
# inductor_config[cpp.cxx] is a key component; CPU graphs need a compiler there.
export CXX="${CXX:-$(command -v g++)}"
if [ -z "${KILN_CLI:-}" ] && [ -x "$src/build-gpu/cli/bin/kiln-cli" ]; then KILN_CLI="$src/build-gpu/cli/bin/kiln-cli"; fi
proof_cli "$src/build-gpu/cli" kiln-cli
gpu="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
say "# startup causes, A/B ($(date -u +%FT%TZ), $gpu, $("$py" -c 'import torch; print("torch", torch.__version__)'), $(nproc) CPUs, $rounds rounds)"

one() {  # one CASE VARIANT CACHE NAME: a process of startup_ab.py under TORCH_TRACE=$w/NAME.trace
  rm -rf "$w/$4.trace"
  TORCHINDUCTOR_CACHE_DIR="$3" TORCH_TRACE="$w/$4.trace" timeout 300 "$py" "$src/bench/gpu/startup_ab.py" \
    --case "$1" --variant "$2" --out "$w/$4.json" > "$w/$4.log" 2>&1 || { echo "  $4 failed:"; tail -5 "$w/$4.log"; }
}
prepared() {  # prepared CASE: the warm cache its A and B start from (copied per run)
  local c="$1" p="$w/prep_$1"
  case "$c" in
    dynamic) mkdir -p "$p" ;;  # both start empty
    vec_isa) one vec_isa prep "$p" "prep_${c}_1"; one vec_isa B "$p" "prep_${c}_2" ;;  # both keys warm
    *) one "$c" prep "$p" "prep_$c" ;;
  esac
}
apply_cause() {  # apply_cause CASE DIR: the cause, on A's copy
  case "$1" in
    fx_miss) rm -rf "$2"; mkdir -p "$2" ;;
    triton_cache) rm -rf "$2/triton" ;;
    best_config) find "$2" -name '*.best_config' -delete ;;
    cpp_libs) find "$2" -name '*.so' -not -path '*/triton/*' -delete ;;
  esac
}
for c in "${cases[@]}"; do
  prepared "$c"
  for r in $(seq 1 "$rounds"); do
    for v in A B; do
      d="$w/run_${c}_${v}_$r"; rm -rf "$d"; cp -a "$w/prep_$c" "$d"
      [ "$v" = A ] && apply_cause "$c" "$d"
      one "$c" "$v" "$d" "${c}_${v}_$r"
      "$cli" startup "$w/${c}_${v}_$r.trace" --json > "$w/${c}_${v}_$r.kiln.json" 2> "$w/${c}_${v}_$r.kiln.err"
      rm -rf "$d"
    done
  done
  say "$c: prepared and run ($(date -u +%T))"
done
"$py" "$src/bench/gpu/startup_ab_summary.py" "$w" "${cases[@]}" | tee -a "$report"
tar -C "$w" -cJf "$out/startup_ab_runs.tar.xz" --exclude='prep_*' --exclude='run_*' . 2>/dev/null
check "every measured claim within 20 % of its A/B saving" "[ \"\$(cat $w/verdict 2>/dev/null)\" = ok ]"
exit $failed
