#!/usr/bin/env bash
# The GPU half of issue 20 (Mega-Cache bundles), for a machine with torch and no network:
#   1. build kiln-cli (no GUI, no tests; CLI11 from .carry/cli11 when the machine has none);
#   2. for each fixture blob: `kiln-cli bundle unpack` into A and torch.compiler.load_cache_artifacts
#      (fresh process, TORCHINDUCTOR_CACHE_DIR=B) into B; the two trees compared by sha256 of every file;
#   3. `kiln-cli bundle pack` of a fixture cache's graphs, loaded by torch into an empty dir (fresh
#      process), then the scenario script run against that dir: per scenario fxgraph_cache_hit/miss.
#
# usage: bench/gpu/bundle_proof.sh OUT_DIR [SCENARIOS_PY [PACK_ROOT]]
#   SCENARIOS_PY  bench/gpu/scenarios.py (the fixtures' scenarios); without it step 3 stops after torch
#                 loaded the packed blob. Run as `$PY SCENARIOS_PY --phase P --cache-dir DIR --out JSON
#                 $SCENARIO_ARGS` for each phase P of KILN_PROOF_PHASES (default "cold": all eight
#                 scenarios, 12 FX graphs); JSON has the fixtures' run_*.json shape.
#   PACK_ROOT     the cache to pack (default: the H100 fixture; its keys hit only on an H100 with
#                 torch 2.11.0+cu130, triton 3.6.0, Python 3.12 and CXX=/opt/gcc/bin/g++, as the fixture
#                 was written: bench/gpu/README.md).
# env: KILN_PYTHON (default /opt/torch/.venv/bin/python if present, else python3), KILN_CLI (a built
#      kiln-cli: skips step 1), KILN_PROOF_PHASES, SCENARIO_ARGS, KILN_PROOF_BASELINE=1 (also run the
#      phases on an empty cache, for contrast), KILN_PROOF_WORK (scratch, default /tmp/kiln-bundle-proof).
# Exit status: 0 every check passed, 1 a check failed, 2 usage or setup (no torch, build failed).
set -uo pipefail
out="${1:?usage: bench/gpu/bundle_proof.sh OUT_DIR [SCENARIOS_PY [PACK_ROOT]]}"
scenarios="${2:-}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$src/bench/gpu/proof_lib.sh"
proof_start bundle_proof "$out" "${KILN_PROOF_WORK:-/tmp/kiln-bundle-proof}"

proof_python
"$py" - > "$out/machine.txt" 2>&1 <<'PY' || { cat "$out/machine.txt" >&2; die "torch is not importable with $py (set KILN_PYTHON to torch's interpreter)" 2; }
import platform, sys, torch
print("python", platform.python_version(), "torch", torch.__version__)
try:
    import triton; print("triton", triton.__version__)
except Exception as e:
    print("triton: not importable:", e)
print("gpu", torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none")
PY
{ nvidia-smi -L 2>/dev/null; nproc; } >> "$out/machine.txt"
proof_header "Bundle proof"

# 1. kiln-cli
proof_cli "$work/build" kiln-cli

# Fixtures (the archives travel with the tree in tests/data).
fx="$work/fixtures"; mkdir -p "$fx/h100h200" "$fx/pgo" "$fx/h100"
tar -xJf "$src/tests/data/inductor-h100-then-h200-torch2.11.tar.xz" -C "$fx/h100h200" || die "cannot extract the h100h200 fixture" 2
tar -xJf "$src/tests/data/inductor-pgo-torch2.11.tar.xz" -C "$fx/pgo" || die "cannot extract the pgo fixture" 2
tar -xJf "$src/tests/data/inductor-h100-torch2.11.tar.xz" -C "$fx/h100" || die "cannot extract the h100 fixture" 2

# Loads BLOB with torch into DIR in a fresh process; prints torch's CacheInfo.
torch_load() {
  TORCHINDUCTOR_CACHE_DIR="$2" "$py" - "$1" <<'PY'
import sys, torch
info = torch.compiler.load_cache_artifacts(open(sys.argv[1], "rb").read())
if info is None:
    sys.exit("load_cache_artifacts returned None: torch rejected the blob")
print(info)
PY
}
tree_hashes() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum); }

# 2. unpack vs load_cache_artifacts
say ""; say "## kiln-cli bundle unpack vs torch.compiler.load_cache_artifacts"; say ""
say "| blob | files (Kiln) | files (torch) | identical |"; say "| --- | ---: | ---: | --- |"
fail=0
for blob in "$fx/h100h200/h200/megacache.bin" "$fx/pgo/megacache-pgo.bin"; do
  name="$(basename "$blob" .bin)"; a="$work/$name/kiln"; t="$work/$name/torch"
  "$cli" bundle unpack "$blob" --into "$a" > "$out/unpack-$name.txt" 2>&1 || { cat "$out/unpack-$name.txt" >&2; die "kiln-cli bundle unpack $name failed"; }
  mkdir -p "$t"
  torch_load "$blob" "$t" > "$out/torch-load-$name.txt" 2>&1 || { cat "$out/torch-load-$name.txt" >&2; die "torch could not load $name"; }
  tree_hashes "$a" > "$out/tree-kiln-$name.sha256"; tree_hashes "$t" > "$out/tree-torch-$name.sha256"
  same=yes; cmp -s "$out/tree-kiln-$name.sha256" "$out/tree-torch-$name.sha256" || { same=NO; fail=1; diff "$out/tree-kiln-$name.sha256" "$out/tree-torch-$name.sha256" | head -20 >&2; }
  say "| $name.bin | $(wc -l < "$out/tree-kiln-$name.sha256") | $(wc -l < "$out/tree-torch-$name.sha256") | $same |"
done

# 3. pack -> load -> scenarios
root="${3:-$fx/h100/inductor}"
say ""; say "## kiln-cli bundle pack, loaded by torch, scenarios run on it"; say ""
"$cli" bundle pack "$root" --out "$work/packed.bin" > "$out/pack.txt" 2>&1 || { cat "$out/pack.txt" >&2; die "kiln-cli bundle pack failed"; }
say "packed: $(head -1 "$out/pack.txt")"
packed_dir="$work/packed-cache"; mkdir -p "$packed_dir"
torch_load "$work/packed.bin" "$packed_dir" > "$out/torch-load-packed.txt" 2>&1 ||
  { cat "$out/torch-load-packed.txt" >&2; die "torch rejected the blob Kiln packed"; }
say "torch accepted it: $(tr -d '\n' < "$out/torch-load-packed.txt" | cut -c1-200)..."
"$cli" bundle diff "$work/packed.bin" "$packed_dir" > "$out/diff-packed.txt" 2>&1
say "kiln-cli bundle diff packed.bin <loaded dir>: $(sed -n 3p "$out/diff-packed.txt")"

# inductor_config[cpp.cxx] is (None, '/opt/gcc/bin/g++') in every fixture key (bench/gpu/README.md).
if [ -n "$scenarios" ] && [ ! -x /opt/gcc/bin/g++ ] && command -v g++ >/dev/null && command -v nvidia-smi >/dev/null && [ -w / ]; then
  mkdir -p /opt/gcc/bin && ln -sf "$(command -v g++)" /opt/gcc/bin/g++ && say "made /opt/gcc/bin/g++ -> $(command -v g++)"
fi
run_scenarios() {  # DIR LABEL
  local phase json
  for phase in ${KILN_PROOF_PHASES:-cold}; do
    json="$out/run_$2_$phase.json"
    "$py" "$scenarios" --phase "$phase" --cache-dir "$1" --out "$json" ${SCENARIO_ARGS:-} > "$out/scenarios-$2-$phase.log" 2>&1 ||
      { tail -20 "$out/scenarios-$2-$phase.log" >&2; say "the scenario script failed ($2, $phase): see logs.tgz"; fail=1; }
    [ -s "$json" ] || { fail=1; continue; }
    "$py" - "$json" "$2 ($phase)" <<'PY' | tee -a "$report"
import json, sys
run = json.load(open(sys.argv[1]))
print(f"\n{sys.argv[2]}:\n\n| scenario | status | fxgraph_cache_hit | fxgraph_cache_miss | autograd_cache_hit | autograd_cache_miss |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
hits = misses = 0
for name, s in run.get("scenarios", {}).items():
    c = s.get("counters", {}); ind = c.get("inductor", {}); aot = c.get("aot_autograd", {})
    h, m = ind.get("fxgraph_cache_hit", 0), ind.get("fxgraph_cache_miss", 0)
    hits += h; misses += m
    print(f"| {name} | {s.get('status', '?')} | {h} | {m} | {aot.get('autograd_cache_hit', 0)} | {aot.get('autograd_cache_miss', 0)} |")
print(f"| total | | {hits} | {misses} | | |")
print(f"\nRESULT {sys.argv[2]}: {'every graph was an fxgraph_cache_hit' if hits and not misses else 'NOT all hits'}")
PY
  done
}
if [ -n "$scenarios" ]; then
  run_scenarios "$packed_dir" packed
  grep -q "RESULT packed .*NOT all hits" "$report" && fail=1
  grep -q "RESULT packed .*every graph" "$report" || fail=1
  if [ "${KILN_PROOF_BASELINE:-0}" = 1 ]; then mkdir -p "$work/empty-cache"; run_scenarios "$work/empty-cache" empty; fi
else
  say "(no scenario script given: step 3 stopped after torch loaded the packed blob)"
fi
say ""; [ $fail = 0 ] && say "ALL CHECKS PASSED" || say "SOME CHECKS FAILED"
# Few files come back from the device machine: pack the logs.
(cd "$out" && tar czf logs.tgz --remove-files ./*.log ./*.txt ./*.sha256 2>/dev/null)
exit $fail
