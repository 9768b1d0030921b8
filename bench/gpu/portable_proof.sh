#!/usr/bin/env bash
# Issue 19's GPU proof: predict with `kiln-cli portable`, run the scenarios, compare with what torch did.
#
#   bench/gpu/portable_proof.sh OUT SCENARIOS_PY [SCENARIO_ARGS...]
#
# On a GPU machine with torch 2.11, cmake, g++, nvcc, OpenSSL and nlohmann headers (CLI11 carried as an
# extracted Debian package in .carry/cli11, see HACKING.md). Steps:
#   1. build kiln-cli (GUI and tests off) into $KILN_PROOF_BUILD (default /tmp/kiln-proof-build; kept
#      between calls on a warm machine);
#   2. per round: the fingerprint of this machine, `kiln-cli env --python $PYTHON --json`, and the
#      probe's raw output (the test data tests/data/probe-*.json stands in for);
#   3. per round and root (ROOTS: h100 = tests/data/inductor-h100-torch2.11.tar.xz, written on an H100;
#      h100h200 = the same cache after two H200 processes, with H100 and H200 entries): extract the
#      cache twice (pristine, and a copy torch uses), `kiln-cli portable COPY --target FP --json`, run
#      SCENARIOS_PY with TORCHINDUCTOR_CACHE_DIR=COPY and TORCH_TRACE=OUT/<round>/<root>/trace (cwd:
#      OUT/<round>/<root>/run, also in $KILN_PROOF_RUN_DIR; "{run}" in SCENARIO_ARGS is replaced by it),
#      `kiln-cli misses TRACE --root PRISTINE --json`, and bench/gpu/compare_prediction.py on those
#      with every run_*.json the scenarios wrote: a table of predicted vs actual per cache event.
# Rounds (ROUNDS, default "asis cxx"): `asis` runs in this environment; `cxx` exports
# CXX=$FIXTURE_CXX (/opt/gcc/bin/g++, the compiler path recorded in the fixture's keys as
# inductor_config[cpp.cxx]), creating it as a symlink to g++ when it is missing and we may, so that the
# only differences left are the machine's own.
# Env: PYTHON (python3), ROUNDS, ROOTS ("h100 h100h200"), SCENARIO_TIMEOUT (420 s), KILN_PROOF_BUILD,
# FINGERPRINT (a fingerprint file to use instead of `env --python`, e.g. one taken on another machine).
set -uo pipefail
out="${1:?usage: portable_proof.sh OUT SCENARIOS_PY [SCENARIO_ARGS...]}"; scenarios="${2:?scenario script}"; shift 2
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"; carry="$src/.carry"
py="${PYTHON:-python3}"; rounds="${ROUNDS:-asis cxx}"; roots="${ROOTS:-h100 h100h200}"
build="${KILN_PROOF_BUILD:-/tmp/kiln-proof-build}"; work=/tmp/kiln-proof; fixture_cxx=/opt/gcc/bin/g++
scenarios="$(cd "$(dirname "$scenarios")" && pwd)/$(basename "$scenarios")"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export PATH=/usr/local/cuda/bin:$PATH
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$py" -c "import sys, torch, triton; print('python', sys.version.split()[0], 'torch', torch.__version__, 'triton', triton.__version__)"
  echo "CXX=${CXX:-<unset>}"; command -v g++; } > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

if [ ! -x "$build/bin/kiln-cli" ] || [ "${REBUILD:-0}" = 1 ]; then
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_GUI=OFF -DKILN_BUILD_TESTS=OFF \
    -DKILN_BUILD_BENCH=OFF "-DCMAKE_PREFIX_PATH=$carry/cli11/usr" > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" --target kiln-cli > "$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
fi
cli="$build/bin/kiln-cli"

archive_of() { case "$1" in h100) echo inductor-h100-torch2.11.tar.xz ;; h100h200) echo inductor-h100-then-h200-torch2.11.tar.xz ;; esac; }

had_cxx="${CXX+set}"; orig_cxx="${CXX-}"
for round in $rounds; do
  rdir="$out/$round"; mkdir -p "$rdir"
  if [ "$round" = cxx ]; then
    if [ ! -x "$fixture_cxx" ]; then
      mkdir -p "$(dirname "$fixture_cxx")" 2>/dev/null && ln -s "$(command -v g++)" "$fixture_cxx" 2>/dev/null \
        || { echo "round cxx: cannot create $fixture_cxx; skipped" | tee "$rdir/skipped.txt"; continue; }
    fi
    export CXX="$fixture_cxx"
  fi
  echo "== round $round (CXX=${CXX:-<unset>})"
  if [ -n "${FINGERPRINT:-}" ]; then
    cp "$FINGERPRINT" "$rdir/fingerprint.json"
  else
    "$cli" env --python "$py" --json > "$rdir/fingerprint.json" 2> "$rdir/env.err" || { cat "$rdir/env.err"; exit 1; }
    "$py" -c "$("$cli" env --print-probe)" > "$rdir/probe-raw.json" 2> /dev/null
  fi
  "$cli" env --from "$rdir/fingerprint.json" > "$rdir/fingerprint.txt"
  for root in $roots; do
    d="$rdir/$root"; w="$work/$round/$root"; rm -rf "$w"; mkdir -p "$d/run" "$d/trace" "$w/pristine" "$w/copy"
    tar -xJf "$src/tests/data/$(archive_of "$root")" -C "$w/pristine" || exit 1
    cp -a "$w/pristine/." "$w/copy/"
    "$cli" portable "$w/copy/inductor" --target "$rdir/fingerprint.json" --json > "$d/portable.json"
    "$cli" portable "$w/copy/inductor" --target "$rdir/fingerprint.json" --limit 0 > "$d/portable.txt"
    args=(); for a in "$@"; do args+=("${a//\{run\}/$d/run}"); done
    start=$SECONDS
    (cd "$d/run" && KILN_PROOF_RUN_DIR="$d/run" TORCHINDUCTOR_CACHE_DIR="$w/copy/inductor" TORCH_TRACE="$d/trace" \
       timeout "${SCENARIO_TIMEOUT:-420}" "$py" "$scenarios" "${args[@]}") > "$d/scenarios.log" 2>&1
    echo "scenarios rc=$? in $((SECONDS - start)) s" >> "$d/scenarios.log"
    "$cli" misses "$d/trace" --root "$w/pristine/inductor" --json > "$d/misses.json"
    mapfile -t runs < <(find "$d/run" -name 'run_*.json' | sort)
    python3 "$src/bench/gpu/compare_prediction.py" --portable "$d/portable.json" --misses "$d/misses.json" \
      --trace "$d/trace" --runs "${runs[@]}" > "$d/compare.txt"
    echo "compare rc=$?" >> "$d/compare.txt"
    echo "--- $round / $root: $(tail -1 "$d/scenarios.log")"; head -3 "$d/portable.txt"; cat "$d/compare.txt"
  done
  if [ "$had_cxx" = set ]; then export CXX="$orig_cxx"; else unset CXX; fi
done
# Few files come back from the device machine: pack the bulky ones.
(cd "$out" && tar czf traces.tgz --remove-files */*/trace 2>/dev/null; true)
