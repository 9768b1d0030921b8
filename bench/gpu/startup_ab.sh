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
"$py" - "$w" "$rounds" "${cases[@]}" <<'PY' | tee -a "$report"
import json, os, statistics, sys
w, rounds, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
# The remedies each case's claim names (core/startup: causes.cpp, startup_report.cpp's miss remedies).
REMEDY = {"fx_miss": ("a cache warmed on this device", "a warm cache shipped with the job", "a hit",
                      "an entry for these sizes cached"),
          "triton_cache": ("the Triton cache kept",), "best_config": ("the .best_config files kept",),
          "cpp_libs": ("the C++ libraries kept",), "dynamic": ("the dimension marked dynamic",),
          "vec_isa": ("TORCHINDUCTOR_VEC_ISA_OK=1",)}
def load(p):
    try: return json.load(open(p))
    except Exception: return None
print("\n| case | A first calls s | B first calls s | measured saving s | Kiln's claim s | measured or inferred | Kiln / measured | Kiln's text |")
print("| --- | ---: | ---: | ---: | ---: | --- | ---: | --- |")
rows = []
for c in cases:
    A = [load(f"{w}/{c}_A_{r}.json") for r in range(1, rounds + 1)]
    B = [load(f"{w}/{c}_B_{r}.json") for r in range(1, rounds + 1)]
    if not all(A) or not all(B):
        print(f"| {c} | run failed | | | | | | |"); rows.append((c, None)); continue
    saving = statistics.median(x["first_calls_s"] - y["first_calls_s"] for x, y in zip(A, B))
    claims, texts, inferred = [], [], set()
    for r in range(1, rounds + 1):
        k = load(f"{w}/{c}_A_{r}.kiln.json") or {}
        s = 0.0
        for proc in k.get("processes", []):
            for av in proc.get("avoidable", []):
                if av.get("remedy") in REMEDY[c]:
                    s += av["seconds"]; inferred.add(bool(av.get("inferred")))
                    texts.append(f"{av['seconds']:.2f} s {'inferred' if av.get('inferred') else 'would go with'} {av['remedy']} ({av['what']})")
        claims.append(s)
    claim = statistics.median(claims)
    kind = "none" if not inferred else ("inferred" if inferred == {True} else "measured" if inferred == {False} else "both")
    ratio = claim / saving if saving > 0 else float("nan")
    rows.append((c, ratio, kind))
    print(f"| {c} | {statistics.median(x['first_calls_s'] for x in A):.2f} | {statistics.median(y['first_calls_s'] for y in B):.2f} "
          f"| {saving:.2f} | {claim:.2f} | {kind} | {ratio:.2f} | {texts[0][:140] if texts else '(no claim)'} |")
bad = [c for c, *rest in rows if rest and rest[0] is not None and rest[1] == "measured" and not (0.8 <= rest[0] <= 1.2)]
none = [c for c, *rest in rows if rest and rest[0] is not None and rest[1] == "none"]
print(f"\nmeasured claims outside 20 % of the A/B saving: {', '.join(bad) or 'none'}; cases with no claim: {', '.join(none) or 'none'}")
open(f"{w}/verdict", "w").write("ok" if not bad else "bad")
PY
tar -C "$w" -cJf "$out/startup_ab_runs.tar.xz" --exclude='prep_*' --exclude='run_*' . 2>/dev/null
check "every measured claim within 20 % of its A/B saving" "[ \"\$(cat $w/verdict 2>/dev/null)\" = ok ]"
exit $failed
