#!/usr/bin/env bash
# The GPU half of issue 18's rebench item, for a machine with torch and no network:
#   1. build kiln-cli and kiln-worker (no GUI, no tests; CLI11 from .carry/cli11 when the machine has none);
#   2. `kiln-cli rebench` on the H100 fixture's mm output module (y6/cy6x6j4m…: whole graph, then -k,
#      which must say "no benchmark kernels": the fixture was compiled without benchmark_kernel);
#   3. a fresh graph compiled with TORCHINDUCTOR_BENCHMARK_KERNEL=1 into a scratch cache: rebench of its
#      output module (whole graph and -k: every kernel named), and of one kernel module on its own (the
#      "0.006ms    0.006GB    1105.08GB/s" form the issue saw fail);
#   4. a pickle graph entry given to rebench: refused (exit 2) before anything runs.
# The raw stdout of each `python MODULE.py [-k [-c]]` is kept beside Kiln's JSON, to add to
# tests/core/worker/data when a new form appears.
#
# usage: bench/gpu/rebench_proof.sh OUT_DIR
# env: KILN_PYTHON (default /opt/torch/.venv/bin/python if present, else python3), KILN_CLI (a built
#      kiln-cli beside its kiln-worker: skips step 1), KILN_PROOF_WORK (scratch, default /tmp/kiln-rebench-proof).
# Exit status: 0 every check passed, 1 a check failed, 2 usage or setup (no torch, build failed).
# Run from the lead's session (bench/gpu/README.md):
#   run(kind="nvidia-h100-x1", carry=[".carry/cli11"], timeout_s=600,
#       command="bash bench/gpu/rebench_proof.sh $OUT")
set -uo pipefail
out="${1:?usage: bench/gpu/rebench_proof.sh OUT_DIR}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$src/bench/gpu/proof_lib.sh"
proof_start rebench_proof "$out" "${KILN_PROOF_WORK:-/tmp/kiln-rebench-proof}"

proof_python
"$py" -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no gpu')" \
  > "$out/machine.txt" 2>&1 || die "torch is not importable with $py (set KILN_PYTHON)" 2
proof_header "Rebench proof"

proof_cli "$work/build" kiln-cli kiln-worker

# 2. the fixture's mm graph (compiled without benchmark_kernel)
fx="$work/h100"; mkdir -p "$fx"
tar -xJf "$src/tests/data/inductor-h100-torch2.11.tar.xz" -C "$fx" || die "cannot extract the h100 fixture" 2
mm="$(ls "$fx"/inductor/y6/cy6x6j4m*.py)"
"$cli" rebench "$mm" --python "$py" --devices 0 --json > "$out/fixture_graph.json" 2> "$out/fixture_graph.err"
check "fixture mm module, whole graph: a time" "grep -q '\"ms\"' '$out/fixture_graph.json'"
"$cli" rebench "$mm" --python "$py" --devices 0 -k --json > "$out/fixture_k.json" 2> "$out/fixture_k.err"
check "fixture mm module, -k: says it has no benchmark kernels" \
  "grep -q 'not compiled with benchmark_kernel=True' '$out/fixture_k.json' '$out/fixture_k.err'"
(cd "$fx/inductor" && TORCHINDUCTOR_CACHE_DIR="$fx/inductor" "$py" "$mm" > "$out/raw_fixture_graph.txt" 2>&1)

# 3. a graph compiled with benchmark kernels
bk="$work/bk"; mkdir -p "$bk"
TORCHINDUCTOR_CACHE_DIR="$bk" TORCHINDUCTOR_BENCHMARK_KERNEL=1 "$py" - > "$out/compile_bk.log" 2>&1 <<'PY' || die "compiling the benchmark-kernel graph failed (see compile_bk.log)"
import torch
@torch.compile
def f(x, y):
    return torch.relu(x @ y + 1).softmax(-1).sum(0)
x = torch.randn(512, 512, device="cuda"); f(x, x); torch.cuda.synchronize()
PY
out_mod="$(grep -l '^# AOT ID' "$bk"/*/*.py | head -1)"
[ -n "$out_mod" ] || die "no output module under $bk"
"$cli" rebench "$out_mod" --python "$py" --devices 0 --json > "$out/bk_graph.json" 2> "$out/bk_graph.err"
check "benchmark-kernel module, whole graph: a time" "grep -q '\"ms\"' '$out/bk_graph.json'"
"$cli" rebench "$out_mod" --python "$py" --devices 0 -k --json > "$out/bk_k.json" 2> "$out/bk_k.err"
check "benchmark-kernel module, -k: kernels named triton_*" "grep -q '\"name\": \"triton_' '$out/bk_k.json'"
(cd "$bk" && TORCHINDUCTOR_CACHE_DIR="$bk" "$py" "$out_mod" > "$out/raw_bk_graph.txt" 2>&1
 TORCHINDUCTOR_CACHE_DIR="$bk" "$py" "$out_mod" -k > "$out/raw_bk_k.txt" 2>&1
 TORCHINDUCTOR_CACHE_DIR="$bk" "$py" "$out_mod" -k -c > "$out/raw_bk_k_c.txt" 2>&1)
kmod="$(grep -l '^@triton.jit' "$bk"/*/*.py | xargs grep -l 'def get_args' | head -1)"
if [ -n "$kmod" ]; then
  "$cli" rebench "$kmod" --python "$py" --devices 0 --json > "$out/kernel_module.json" 2> "$out/kernel_module.err"
  check "a kernel module on its own: a time (the GB/s form)" "grep -q '\"ms\"' '$out/kernel_module.json'"
  (cd "$bk" && TORCHINDUCTOR_CACHE_DIR="$bk" "$py" "$kmod" > "$out/raw_kernel_module.txt" 2>&1)
else
  say "FAIL  no kernel module with a benchmark harness under $bk"; failed=1
fi

# 4. a pickle entry is refused before anything runs
entry="$(find "$fx/inductor/fxgraph" -type f | head -1)"
"$cli" rebench "$entry" --python "$py" > /dev/null 2> "$out/pickle.err"; rc=$?
check "a graph entry (pickle) is refused with exit 2" "[ $rc -eq 2 ] && grep -q 'not an output-code module' '$out/pickle.err'"

say ""; say "raw module outputs: raw_*.txt; Kiln's reports: *.json (stderr beside them)"
exit "$failed"
