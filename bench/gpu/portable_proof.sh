#!/usr/bin/env bash
# Issue 19's GPU proof: predict with `kiln-cli portable`, run the scenarios, compare with what torch did.
#
#   bench/gpu/portable_proof.sh OUT_DIR [SCENARIOS_PY]      (default: bench/gpu/scenarios.py)
#
# On a device machine (torch 2.11 in /opt/torch/.venv, cmake, g++, OpenSSL and nlohmann headers; CLI11
# from .carry/cli11 when the machine has none, see bench/gpu/README.md):
#   1. build kiln-cli (no GUI, no tests) unless KILN_CLI names one;
#   2. per round, this machine's fingerprint: `kiln-cli env --python $PY --json`, taken in the
#      environment the scenario process will have, and the probe's raw output (probe-raw.json: real
#      data for tests/data, which holds a stand-in assembled from the fixture's traces);
#   3. per round and root (h100: tests/data/inductor-h100-torch2.11.tar.xz, written on an H100;
#      h100h200: the same cache after two H200 processes, H100 and H200 entries): extract the cache
#      twice (pristine; a copy torch uses), `kiln-cli portable COPY --target FP --json` (the prediction,
#      made before the run), `SCENARIOS_PY --phase $PHASE --cache-dir COPY --trace TRACE --out RUN`,
#      `kiln-cli misses TRACE --root PRISTINE --json`, and compare_prediction.py: per cache event the
#      predicted verdict and components against what the trace shows, and the trace against run_*.json.
# Rounds (ROUNDS, default "asis othercxx"):
#   asis      the scenario script's own environment: it sets CXX=/opt/gcc/bin/g++ (the compiler path
#             the fixture keys hold in inductor_config[cpp.cxx]) and three more variables when unset;
#             the same defaults are exported here first, so the fingerprint sees what torch will see
#             (/opt/gcc/bin/g++ is linked to g++ when missing, as proof.sh does). On an H100 the H100
#             entries should be predicted and found hits; on an H200 they should miss on
#             system_info[device] and [hash] (cross-device) while the h100h200 root's H200 entries hit.
#   othercxx  CXX=<g++ by its real path> for both: the same machine, one environment variable apart;
#             every entry should be predicted and found a miss on inductor_config[cpp.cxx] alone.
# Env: KILN_PYTHON (/opt/torch/.venv/bin/python if present, else python3), KILN_CLI, ROUNDS, ROOTS
# ("h100 h100h200"), PHASE (warm), SCENARIO_ARGS (appended), SCENARIO_TIMEOUT (300 s), FINGERPRINT (a
# fingerprint file to use instead of `env --python`), KILN_PROOF_WORK (/tmp/kiln-portable-proof).
# Writes OUT_DIR/proof.md (every table) and traces.tgz. Exit 0: every comparison agreed; 1: some did
# not; 2: setup (no torch, build failed).
set -uo pipefail
out="${1:?usage: bench/gpu/portable_proof.sh OUT_DIR [SCENARIOS_PY]}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$src/bench/gpu/proof_lib.sh"
scenarios="${2:-$src/bench/gpu/scenarios.py}"
scenarios="$(cd "$(dirname "$scenarios")" && pwd)/$(basename "$scenarios")"
rounds="${ROUNDS:-asis othercxx}"; roots="${ROOTS:-h100 h100h200}"; phase="${PHASE:-warm}"
work="${KILN_PROOF_WORK:-/tmp/kiln-portable-proof}"; fixture_cxx=/opt/gcc/bin/g++
proof_start portable_proof "$out" "$work"
proof_python
export PATH=/usr/local/cuda/bin:$PATH
"$py" -c "import sys, torch; print('python', sys.version.split()[0], 'torch', torch.__version__, 'gpu',
torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'none')" > "$out/machine.txt" 2>&1 \
  || { cat "$out/machine.txt" >&2; die "torch is not importable with $py (set KILN_PYTHON)" 2; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null; echo "CXX=${CXX:-<unset>}"; } >> "$out/machine.txt"
proof_header "Portability proof"

proof_cli "$work-build" kiln-cli

archive_of() { case "$1" in h100) echo inductor-h100-torch2.11.tar.xz ;; h100h200) echo inductor-h100-then-h200-torch2.11.tar.xz ;; esac; }
round_vars=(TORCHINDUCTOR_FX_GRAPH_CACHE TORCHINDUCTOR_AUTOGRAD_CACHE TORCH_CUDA_ARCH_LIST CXX)
declare -A saved=()
for v in "${round_vars[@]}"; do [ -n "${!v+set}" ] && saved[$v]="${!v}"; done
restore() { for v in "${round_vars[@]}"; do if [ -n "${saved[$v]+set}" ]; then export "$v=${saved[$v]}"; else unset "$v"; fi; done; }
failed=0
for round in $rounds; do
  rdir="$out/$round"; mkdir -p "$rdir"
  restore
  case "$round" in
    asis)  # what scenarios.py sets with os.environ.setdefault before importing torch
      export TORCHINDUCTOR_FX_GRAPH_CACHE="${TORCHINDUCTOR_FX_GRAPH_CACHE:-1}" TORCHINDUCTOR_AUTOGRAD_CACHE="${TORCHINDUCTOR_AUTOGRAD_CACHE:-1}"
      export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0a}" CXX="${CXX:-$fixture_cxx}"
      if [ "$CXX" = "$fixture_cxx" ] && [ ! -x "$fixture_cxx" ]; then
        mkdir -p "$(dirname "$fixture_cxx")" && ln -sf "$(command -v g++)" "$fixture_cxx" || say "warning: cannot create $fixture_cxx"
      fi ;;
    othercxx) export CXX="$(readlink -f "$(command -v g++)")" ;;
    *) say "unknown round $round"; continue ;;
  esac
  say ""; say "## round $round (CXX=$CXX)"
  if [ -n "${FINGERPRINT:-}" ]; then
    cp "$FINGERPRINT" "$rdir/fingerprint.json"
  else
    "$cli" env --python "$py" --json > "$rdir/fingerprint.json" 2> "$rdir/env.err" || { cat "$rdir/env.err" >&2; exit 2; }
    "$py" -c "$("$cli" env --print-probe)" > "$rdir/probe-raw.json" 2> /dev/null
  fi
  "$cli" env --from "$rdir/fingerprint.json" > "$rdir/fingerprint.txt"
  for root in $roots; do
    d="$rdir/$root"; w="$work/$round/$root"; rm -rf "$w"; mkdir -p "$d/run" "$d/trace" "$w/pristine" "$w/copy"
    tar -xJf "$src/tests/data/$(archive_of "$root")" -C "$w/pristine" || exit 2
    cp -a "$w/pristine/." "$w/copy/"
    "$cli" portable "$w/copy/inductor" --target "$rdir/fingerprint.json" --json > "$d/portable.json"
    "$cli" portable "$w/copy/inductor" --target "$rdir/fingerprint.json" --limit 0 > "$d/portable.txt"
    start=$SECONDS
    # shellcheck disable=SC2086  # SCENARIO_ARGS is a word list on purpose
    timeout "${SCENARIO_TIMEOUT:-300}" "$py" "$scenarios" --phase "$phase" --cache-dir "$w/copy/inductor" --trace "$d/trace" \
      --out "$d/run/run_$phase.json" ${SCENARIO_ARGS:-} > "$d/scenarios.log" 2>&1
    echo "scenarios rc=$? in $((SECONDS - start)) s" >> "$d/scenarios.log"
    "$cli" misses "$d/trace" --root "$w/pristine/inductor" --json > "$d/misses.json"
    mapfile -t runs < <(find "$d/run" -name 'run_*.json' | sort)
    python3 "$src/bench/gpu/compare_prediction.py" --portable "$d/portable.json" --misses "$d/misses.json" \
      --trace "$d/trace" --runs "${runs[@]}" > "$d/compare.txt"
    rc=$?; [ $rc -eq 0 ] || failed=1
    say ""; say "### $round / $root ($(tail -1 "$d/scenarios.log"), compare rc=$rc)"
    say '```'; head -3 "$d/portable.txt" | tee -a "$report"; tee -a "$report" < "$d/compare.txt"; say '```'
  done
done
restore
# Few files come back from the device machine: pack the bulky ones.
(cd "$out" && tar czf traces.tgz --remove-files ./*/*/trace 2>/dev/null; true)
exit $failed
