#!/usr/bin/env bash
# The GPU proof of issue 43 (every rank runs the same kernel), on nvidia-h100-x4:
#   1. the agreed timing caches: `kiln-cli ranks --agree --write` on copies of the earlier job's ranks
#      (tests/data/ranks-h100x4-torch2.11.tar.xz: 10 of 16 ops differ), made here with KILN_CLI or a
#      kiln-cli built here, or taken from .carry/ranks-agreed/ (`ranks_proof.sh --prepare` on a
#      machine with a kiln-cli: no CLI11 needed on the GPU host);
#   2. bench/gpu/ranks_job.py again under torchrun, each rank's fresh cache seeded with only its
#      agreed timing cache;
#   3. no rank benchmarks: 0 AUTOTUNE tables in each rank's stderr, its timing cache unchanged;
#   4. every template kernel's config (config_args, num_stages, num_warps) read from each rank's output
#      code, compared across ranks: 0 differences (the earlier job's count printed beside it);
#   5. step times: each rank's own timing cache against the agreed one, alternated on this machine
#      (RANKS_AB_ROUNDS rounds, default 2; run.json, median of 200 steps).
# usage: bash bench/gpu/ranks_proof.sh OUT_DIR      (on the GPU host, from the repo root)
#        bash bench/gpu/ranks_proof.sh --prepare     (anywhere with KILN_CLI or build/bin/kiln-cli)
# env: KILN_CLI, KILN_PYTHON, KILN_PROOF_WORK (scratch, default /tmp/kiln-ranks-proof)
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="$src/tests/data/ranks-h100x4-torch2.11.tar.xz"
agree() {  # agree CLI DIR: the ranks under DIR rewritten in place, the reports beside them
  "$1" ranks "$2"/rank{0,1,2,3} > "$2/ranks_before.txt" 2>&1 &&
    "$1" ranks "$2"/rank{0,1,2,3} --agree --write > "$2/agree.txt" 2>&1 &&
    "$1" ranks "$2"/rank{0,1,2,3} > "$2/ranks_agreed.txt" 2>&1
}
if [ "${1:-}" = "--prepare" ]; then
  cli="${KILN_CLI:-$src/build/bin/kiln-cli}"; dst="$src/.carry/ranks-agreed"
  rm -rf "$dst"; mkdir -p "$dst"; tar -xJf "$data" -C "$dst" && agree "$cli" "$dst" || exit 1
  find "$dst"/rank? -mindepth 1 -maxdepth 1 ! -name inductor -exec rm -rf {} +  # carried: the caches alone
  find "$dst"/rank?/inductor -mindepth 1 -maxdepth 1 ! -name cache -exec rm -rf {} +
  head -1 "$dst/ranks_before.txt" "$dst/ranks_agreed.txt"; du -sh "$dst"; exit 0
fi
out="${1:?usage: bash bench/gpu/ranks_proof.sh OUT_DIR | --prepare}"
. "$src/bench/gpu/proof_lib.sh"
proof_start ranks_proof "$out" "${KILN_PROOF_WORK:-/tmp/kiln-ranks-proof}"
proof_python
{ nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
  "$py" -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > "$out/machine.txt" 2>&1 ||
  die "no GPU or no torch" 2
proof_header "Every rank runs the same kernel (issue 43)"
[ "$(nvidia-smi -L | wc -l)" -ge 4 ] || die "4 GPUs needed (nvidia-h100-x4)" 2

# 1. the agreed caches
before="$work/before"; mkdir -p "$before"; tar -xJf "$data" -C "$before" || die "cannot extract $data" 2
if [ -d "$src/.carry/ranks-agreed/rank0" ]; then
  agreed="$src/.carry/ranks-agreed"; say "agreed caches: .carry/ranks-agreed (ranks_proof.sh --prepare)"
else
  proof_cli "$work/build" kiln-cli
  agreed="$work/agreed"; cp -a "$before" "$agreed"; agree "$cli" "$agreed" || die "kiln-cli ranks --agree failed" 1
  say "agreed caches: kiln-cli ranks --agree --write, here"
fi
cp "$agreed"/ranks_before.txt "$agreed"/agree.txt "$agreed"/ranks_agreed.txt "$out/"
say "before: $(head -1 "$out/ranks_before.txt"); after --agree --write: $(head -1 "$out/ranks_agreed.txt")"
want="$(sed -n 1p "$before/machine.txt" | cut -d, -f2 | xargs)"
have="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
[ "$want" = "$have" ] || say "note: the caches were written on $want, this is $have (torch would not read them)"

# 2. the job again, each rank seeded with only its agreed timing cache
after="$work/after"
for r in 0 1 2 3; do mkdir -p "$after/rank$r/inductor/cache" && cp "$agreed/rank$r/inductor/cache/"* "$after/rank$r/inductor/cache/"; done
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
s=$(date +%s)
TORCH_TRACE="$work/trace" timeout 480 "$py" -m torch.distributed.run --standalone --nproc_per_node 4 \
  --log-dir "$work/logs" --redirects 3 --tee 0 "$src/bench/gpu/ranks_job.py" --out "$after" --cache-base "$after" \
  > "$out/torchrun.log" 2>&1 || die "torchrun failed (torchrun.log)" 1
say "torchrun: $(( $(date +%s) - s )) s"
for r in 0 1 2 3; do
  cp "$(find "$work/logs" -path "*/$r/stderr.log" | head -1)" "$after/rank$r/stderr.log"
  mkdir -p "$after/rank$r/trace"; mv "$work"/trace/*rank_"$r"_* "$after/rank$r/trace/"
  cp "$after/rank$r/stderr.log" "$out/stderr_rank$r.log"; cp "$after/rank$r/run.json" "$out/run_rank$r.json"
done

# 3. no rank benchmarks
tables="$(for r in 0 1 2 3; do grep -c '^AUTOTUNE' "$after/rank$r/stderr.log"; done | paste -sd' ')"
check "AUTOTUNE tables per rank: $tables (0 0 0 0: no rank benchmarks)" "[ '$tables' = '0 0 0 0' ]"
same_caches() { for r in 0 1 2 3; do cmp -s "$agreed/rank$r/inductor/cache/"* "$after/rank$r/inductor/cache/"* || return 1; done; }
check "each rank's timing cache is the agreed one, unchanged" same_caches

# 4. template kernel configs across ranks, from the output code: "N D" = the template kernels, and
# those whose config (config_args, num_stages, num_warps) is not the same on all 4 ranks, or that a
# rank lacks
count() {
  "$py" - "$1" <<'EOF'
import collections, glob, re, sys
by = collections.defaultdict(dict)
for r in range(4):
    for f in glob.glob(f"{sys.argv[1]}/rank{r}/inductor/*/*.py"):
        text = open(f).read()
        if not text.startswith("# AOT ID:"): continue
        for name, body in re.findall(r"async_compile\.triton\('(\w+)', '''(.*?)'''", text, re.S):
            head = body.split("@triton.jit")[0]
            if "@triton_heuristics.template(" not in head: continue
            cfg = re.search(r"'config_args': (\{[^}]*\})", head).group(1)
            by[(text.split("\n", 1)[0], name)][r] = cfg + str(re.findall(r"num_(?:stages|warps)=\d+", head))
print(len(by), sum(1 for v in by.values() if len(v) < 4 or len(set(v.values())) > 1))
EOF
}
read -r n_before d_before <<< "$(count "$before")"; read -r n_after d_after <<< "$(count "$after")"
say "template kernels whose config differs between ranks: before $d_before of $n_before, after $d_after of $n_after"
check "every rank runs the same config for every template kernel (0 differences)" "[ '$d_after' = 0 ] && [ '$n_after' -gt 0 ]"
[ -n "${cli:-}" ] && "$cli" ranks "$after"/rank{0,1,2,3} > "$out/ranks_after.txt" 2>&1 && say "kiln-cli ranks after: $(head -1 "$out/ranks_after.txt")"

# 5. step times: an A/B on this machine, alternated. Each round runs the job twice from fresh caches,
# once seeded with every rank's own timing cache from the earlier job (torch's winners, rank by rank)
# and once with the agreed ones; neither benchmarks. The step launched from Python is host-bound and
# moves between processes, so the rounds alternate and the medians are compared.
ab() {  # ab ROUND VARIANT SRC: the job from caches seeded with SRC's timing caches
  local d="$work/ab_$1_$2"; mkdir -p "$d"
  for r in 0 1 2 3; do mkdir -p "$d/rank$r/inductor/cache" && cp "$3/rank$r/inductor/cache/"* "$d/rank$r/inductor/cache/"; done
  timeout 300 "$py" -m torch.distributed.run --standalone --nproc_per_node 4 "$src/bench/gpu/ranks_job.py" \
    --out "$d" --cache-base "$d" > "$d/torchrun.log" 2>&1
}
for round in $(seq 1 "${RANKS_AB_ROUNDS:-2}"); do ab "$round" own "$before"; ab "$round" agreed "$agreed"; done
"$py" - "$work" "${RANKS_AB_ROUNDS:-2}" <<'EOF' | tee -a "$report"
import json, os, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
mean = {}
for v in ("own", "agreed"):
    vals = []
    for rd in range(1, rounds + 1):
        runs = [f"{work}/ab_{rd}_{v}/rank{r}/run.json" for r in range(4)]
        if all(os.path.exists(f) for f in runs):
            vals.append(sum(json.load(open(f))["step_ms_median"] for f in runs) / 4)
    mean[v] = vals
    print(f"{v:6} timing caches: mean of the ranks' step medians per round " + ", ".join(f"{x:.4f}" for x in vals) + " ms")
if all(mean.values()):
    ratio = statistics.median(mean["agreed"]) / statistics.median(mean["own"])
    print(f"agreed / each rank's own (median of rounds): {ratio:.4f}")
    open(f"{work}/step_ratio", "w").write(f"{ratio:.4f}")
EOF
not_worse() { [ -s "$work/step_ratio" ] && "$py" -c 'import sys; sys.exit(float(open(sys.argv[1]).read()) > 1.05)' "$work/step_ratio"; }
check "step time with the agreed kernels not worse than with each rank's own (same machine, alternated, within 5 %)" not_worse
tar -C "$after" --exclude='*/inductor/triton' -cJf "$out/after.tar.xz" . 2>/dev/null
say "$([ $failed = 0 ] && echo PASSED || echo FAILED)"
exit $failed
