#!/usr/bin/env bash
# Device-machine run: bench/gpu/model_cache.py cold (a fresh cache) and warm (the same cache again),
# each with TORCH_TRACE, the mm log and stderr kept; everything tarred into OUT (the device's 8-file
# limit: the cache split into 15 MB parts). usage: model_cache.sh OUT [COLD_LIMIT_S]
set -uo pipefail
out="$1"; limit="${2:-420}"
here="$(cd "$(dirname "$0")" && pwd)"
w=/tmp/kiln-model; rm -rf "$w"; mkdir -p "$w"
export TORCHINDUCTOR_CACHE_DIR="$w/inductor" TORCHINDUCTOR_FX_GRAPH_CACHE=1 TORCHINDUCTOR_AUTOGRAD_CACHE=1
export PYTHONUNBUFFERED=1
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c 'import torch, triton, sys; print("torch", torch.__version__, "triton", triton.__version__, "python", sys.version.split()[0])'; nproc; } > "$w/machine.txt" 2>&1
for phase in cold warm; do
  mkdir -p "$w/$phase"
  s=$(date +%s.%N)
  TORCH_TRACE="$w/$phase/trace" TORCHINDUCTOR_MM_LOGGING_FILE="$w/$phase/mm_log.json" \
    timeout "$limit" python3 "$here/model_cache.py" --out "$w/$phase/run.json" > "$w/$phase/stdout.log" 2> "$w/$phase/stderr.log"
  echo "$phase rc=$? wall=$(echo "$(date +%s.%N) - $s" | bc)" | tee -a "$w/machine.txt"
done
grep -c '^AUTOTUNE' "$w"/cold/stderr.log | sed 's/^/cold AUTOTUNE tables: /' | tee -a "$w/machine.txt"
grep -c '^AUTOTUNE' "$w"/warm/stderr.log | sed 's/^/warm AUTOTUNE tables: /' | tee -a "$w/machine.txt"
du -sh "$w/inductor" | tee -a "$w/machine.txt"
cp "$w/machine.txt" "$out/"
tar -C "$w" -cf - . | xz -T16 -6 > /tmp/model.tar.xz
ls -l /tmp/model.tar.xz
split -b 15M -d /tmp/model.tar.xz "$out/model.tar.xz.part"
ls -l "$out"
