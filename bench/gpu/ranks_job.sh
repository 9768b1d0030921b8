#!/usr/bin/env bash
# Device-machine run of bench/gpu/ranks_job.py on every GPU: one cache, TORCH_TRACE and stderr per
# rank (torchrun --log-dir keeps each rank's stderr with its AUTOTUNE tables), all tarred into OUT in
# parts of 15 MB (triton/ dirs left out: the timing caches, kernel modules and entries are what the
# rank comparison reads). usage: ranks_job.sh OUT [NPROC] [CACHE_BASE]
set -uo pipefail
out="$1"; n="${2:-$(nvidia-smi -L | wc -l)}"; w=/tmp/kiln-ranks; base="${3:-$w}"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$w"; mkdir -p "$w"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
{ nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > "$w/machine.txt"
# TORCH_TRACE per rank: torch names its files by rank, one folder serves all.
s=$(date +%s)
TORCH_TRACE="$w/trace" timeout 480 torchrun --standalone --nproc_per_node "$n" --log-dir "$w/logs" --redirects 3 --tee 0 \
  "$here/ranks_job.py" --out "$w" --cache-base "$base" > "$w/torchrun.log" 2>&1
echo "torchrun rc=$? wall=$(( $(date +%s) - s )) s" | tee -a "$w/machine.txt"
for f in $(find "$w/logs" -name 'stderr.log'); do r=$(basename "$(dirname "$f")"); cp "$f" "$w/stderr_rank$r.log"; done
grep -c '^AUTOTUNE' "$w"/stderr_rank*.log | tee -a "$w/machine.txt"
cat "$w"/rank*/run.json | tee -a "$w/machine.txt" | grep -E 'step_ms_median|compile'
cp "$w/machine.txt" "$out/"
tar -C "$w" --exclude='*/inductor/triton' -cf - . | xz -T0 -6 > /tmp/ranks.tar.xz
ls -l /tmp/ranks.tar.xz
split -b 15M -d /tmp/ranks.tar.xz "$out/ranks.tar.xz.part"
