#!/usr/bin/env bash
# The GPU half of issue 6 / 11 in one go, for a machine with NVIDIA GPUs and no network:
# configure with carried CLI11/GoogleTest/fixtures (.carry/), build the autotune targets, run their
# tests, then bench/autotune. Usage: bench/autotune/device_run.sh OUT_DIR [SECONDS_BUDGET]
set -uo pipefail
out="${1:?usage: device_run.sh OUT_DIR [SECONDS]}"; budget="${2:-560}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"; carry="$src/.carry"; b=/tmp/kiln-build
export PATH=/usr/local/cuda/bin:$PATH
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvcc --version | tail -2; python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"; nproc; } > "$out/machine.txt" 2>&1
cmake -S "$src" -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_GUI=OFF -DKILN_BUILD_TESTS=ON -DKILN_BUILD_BENCH=OFF \
  "-DCMAKE_PREFIX_PATH=$carry/cli11/usr;$carry/gtest/usr" > "$out/cmake.log" 2>&1 || { tail -40 "$out/cmake.log"; exit 1; }
cmake --build $b -j"$(nproc)" --target kiln-cli kiln-worker test_worker test_worker_tuning_pool test_tuning test_cli > "$out/build.log" 2>&1 \
  || { grep -E "error|Error" -A4 "$out/build.log" | head -60; exit 1; }
(cd $b && ctest -R "Executor|InductorModule|Spec|TimingCache|TuneReport|Channel|Protocol|TuningProcess|Selector|CliAutotune|CliRebench" -j8 --timeout 300 --output-on-failure) > "$out/ctest.log" 2>&1
grep -E "tests passed|FAILED|Skipped|\*\*\*" "$out/ctest.log" | head -30
left=$((budget - SECONDS)); echo "bench budget ${left}s"
timeout "$left" "$src/bench/autotune/run" $b /tmp/kiln-bench > "$out/bench.log" 2>&1; echo "bench rc=$?"
cat "$out/bench.log"
cp /tmp/kiln-bench/results.json /tmp/kiln-bench/scaling.png "$out/" 2>/dev/null
cp /tmp/kiln-bench/mm0.jsonl "$out/session_mm0.jsonl" 2>/dev/null
# Few files come back from the device machine: pack the logs.
(cd "$out" && tar czf logs.tgz --remove-files cmake.log build.log ctest.log 2>/dev/null)
true
