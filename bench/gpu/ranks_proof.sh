#!/usr/bin/env bash
# The GPU proof of issue 43 (every rank runs the same kernel), on every GPU of the machine (N ranks):
#   0. (--job) a fresh N-rank job (ranks_job.sh: torch's own max-autotune, one cache per rank) and
#      `kiln-cli ranks --agree --write` on a copy of its ranks, kiln-cli built here meanwhile;
#   1. the agreed timing caches: from --job on this machine (/tmp/kiln-ranks-agreed), RANKS_AGREED, or
#      `ranks_proof.sh --prepare` on the fixture (.carry/ranks-agreed), or made here with a kiln-cli;
#   2. bench/gpu/ranks_job.py again under torchrun, each rank's fresh cache seeded with only its
#      agreed timing cache;
#   3. no rank benchmarks: 0 AUTOTUNE tables in each rank's stderr, its timing cache unchanged;
#   4. every template kernel's config (config_args, num_stages, num_warps) read from each rank's output
#      code, compared across ranks: 0 differences (the earlier job's count printed beside it);
#   5. step times: each rank's own kernels against the agreed ones, alternated on this machine
#      (RANKS_AB_ROUNDS rounds, default 3, ABBA order; run.json: median of 200 steps by CUDA events, and
#      the kernels' GPU time per step from the profiler). When the earlier job ran here, each variant
#      runs from its whole cache (an FX hit: the very kernels each job chose); else from fresh caches
#      seeded with its timing caches.
# usage: bash bench/gpu/ranks_proof.sh --job OUT_DIR   (GPU host: step 0; then ranks_proof.sh OUT_DIR2)
#        bash bench/gpu/ranks_proof.sh --each-device OUT_DIR   (GPU host, after --job: retune --each-device)
#        bash bench/gpu/ranks_proof.sh OUT_DIR         (GPU host, from the repo root)
#        bash bench/gpu/ranks_proof.sh --prepare       (anywhere with KILN_CLI or build/bin/kiln-cli)
# env: KILN_CLI, KILN_PYTHON, KILN_PROOF_WORK (scratch, default /tmp/kiln-ranks-proof), RANKS_DATA (the
#      earlier job: a dir or .tar.xz; default /tmp/kiln-ranks after --job, else the H100 fixture),
#      RANKS_AGREED (a dir of agreed ranks)
set -uo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fixture="$src/tests/data/ranks-h100x4-torch2.11.tar.xz"
job_dir=/tmp/kiln-ranks; job_agreed=/tmp/kiln-ranks-agreed
ranks_in() { (cd "$1" && ls -d rank[0-9]* | sort -V); }
agree() {  # agree CLI DIR: the ranks under DIR rewritten in place, the reports beside them
  local r; r=($(ranks_in "$2" | sed "s|^|$2/|"))
  "$1" ranks "${r[@]}" > "$2/ranks_before.txt" 2>&1 &&
    "$1" ranks "${r[@]}" --agree --write > "$2/agree.txt" 2>&1 &&
    "$1" ranks "${r[@]}" > "$2/ranks_agreed.txt" 2>&1
}
if [ "${1:-}" = "--prepare" ]; then
  cli="${KILN_CLI:-$src/build/bin/kiln-cli}"; dst="$src/.carry/ranks-agreed"
  rm -rf "$dst"; mkdir -p "$dst"; tar -xJf "$fixture" -C "$dst" && agree "$cli" "$dst" || exit 1
  find "$dst"/rank* -mindepth 1 -maxdepth 1 ! -name inductor -exec rm -rf {} +  # carried: the caches alone
  find "$dst"/rank*/inductor -mindepth 1 -maxdepth 1 ! -name cache -exec rm -rf {} +
  head -1 "$dst/ranks_before.txt" "$dst/ranks_agreed.txt"; du -sh "$dst"; exit 0
fi
. "$src/bench/gpu/proof_lib.sh"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
# per_rank DIR: each rank's stderr and trace moved from torchrun's layout into DIR/rank<R>/
per_rank() {
  local d="$1" logs="$2" trace="$3" r
  for r in $(ranks_in "$d" | sed 's/rank//'); do
    cp "$(find "$logs" -path "*/$r/stderr.log" | head -1)" "$d/rank$r/stderr.log"
    mkdir -p "$d/rank$r/trace"; mv "$trace"/*rank_"$r"_* "$d/rank$r/trace/" 2> /dev/null
  done
}

# count DIR: "N D", the template kernels in DIR/rank*/ output code and those whose config
# (config_args, num_stages, num_warps) is not the same on all $n ranks, or that a rank lacks
count() {
  "$py" - "$1" "$n" <<'EOF'
import collections, glob, re, sys
by, n = collections.defaultdict(dict), int(sys.argv[2])
for r in range(n):
    for f in glob.glob(f"{sys.argv[1]}/rank{r}/inductor/*/*.py"):
        text = open(f).read()
        if not text.startswith("# AOT ID:"): continue
        for name, body in re.findall(r"async_compile\.triton\('(\w+)', '''(.*?)'''", text, re.S):
            head = body.split("@triton.jit")[0]
            if "@triton_heuristics.template(" not in head: continue
            cfg = re.search(r"'config_args': (\{[^}]*\})", head).group(1)
            by[(text.split("\n", 1)[0], name)][r] = cfg + str(re.findall(r"num_(?:stages|warps)=\d+", head))
print(len(by), sum(1 for v in by.values() if len(v) < n or len(set(v.values())) > 1))
EOF
}
# check_no_tables DIR: each rank's stderr under DIR holds no AUTOTUNE table (no rank benchmarked)
check_no_tables() {
  local tables zeros
  tables="$(for r in "${ranks[@]}"; do grep -c '^AUTOTUNE' "$1/$r/stderr.log"; done | paste -sd' ')"
  zeros="$(for r in "${ranks[@]}"; do echo 0; done | paste -sd' ')"
  check "AUTOTUNE tables per rank: $tables ($zeros: no rank benchmarks)" "[ '$tables' = '$zeros' ]"
}
# The A/B's variants: whole caches (FX hits: each runs the very kernels its job chose) when $whole is 1,
# else fresh caches seeded with the timing caches (both compile, neither benchmarks).
ab() {  # ab ROUND VARIANT SRC [TABLE]: ranks_job.py from SRC's caches (with the lookup table TABLE)
  local d="$work/ab_$1_$2" r; mkdir -p "$d"
  for r in "${ranks[@]}"; do
    if [ $whole = 1 ]; then mkdir -p "$d/$r" && cp -a "$3/$r/inductor" "$d/$r/inductor"
    else mkdir -p "$d/$r/inductor/cache" && cp "$3/$r/inductor/cache/"* "$d/$r/inductor/cache/"; fi
  done
  timeout 300 "$py" -m torch.distributed.run --standalone --nproc_per_node "$n" --log-dir "$d/logs" --redirects 3 --tee 0 \
    "$src/bench/gpu/ranks_job.py" --out "$d" --cache-base "$d" ${4:+--pin "$4"} > "$d/torchrun.log" 2>&1
  for r in "${ranks[@]}"; do grep -c '^AUTOTUNE' "$(find "$d/logs" -path "*/${r#rank}/stderr.log" | head -1)"; done | paste -sd' ' > "$d/tables"
}
# ab_summary: each variant's step per round, the ratios into $work/step_ratio and $work/gpu_ratio
ab_summary() {
"$py" - "$work" "$rounds" "$n" <<'EOF' | tee -a "$report"
import json, os, statistics, sys
work, rounds, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
got = {}
for v in ("own", "agreed"):
    ev, gpu, tables = [], [], []
    for rd in range(1, rounds + 1):
        runs = [f"{work}/ab_{rd}_{v}/rank{r}/run.json" for r in range(n)]
        if all(os.path.exists(f) for f in runs):
            js = [json.load(open(f)) for f in runs]
            ev.append(sum(j["step_ms_median"] for j in js) / n)
            if all(j.get("gpu_ms_per_step") for j in js):
                gpu.append(sum(j["gpu_ms_per_step"] for j in js) / n)
        tables.append(open(f"{work}/ab_{rd}_{v}/tables").read().strip() if os.path.exists(f"{work}/ab_{rd}_{v}/tables") else "?")
    got[v] = (ev, gpu)
    print(f"{v:6} kernels: step (CUDA events, mean of the ranks' medians) per round " + ", ".join(f"{x:.4f}" for x in ev)
          + " ms; GPU kernel time per step (profiler) " + ", ".join(f"{x:.4f}" for x in gpu) + f" ms; AUTOTUNE tables per round: {' | '.join(tables)}")
ok = True
for i, what in ((0, "step, CUDA events"), (1, "GPU kernel time per step")):
    a, b = got["agreed"][i], got["own"][i]
    if a and b:
        ratio = statistics.median(a) / statistics.median(b)
        print(f"agreed / each rank's own, {what} (median of rounds): {ratio:.4f}")
        if i == 0:
            open(f"{work}/step_ratio", "w").write(f"{ratio:.4f}")
        else:
            open(f"{work}/gpu_ratio", "w").write(f"{ratio:.4f}")
EOF
}
not_worse() { [ -s "$work/$1" ] && "$py" -c 'import sys; sys.exit(float(open(sys.argv[1]).read()) > float(sys.argv[2]))' "$work/$1" "$2"; }

if [ "${1:-}" = "--job" ]; then
  out="${2:?usage: ranks_proof.sh --job OUT_DIR}"
  proof_start ranks_job "$out" "${KILN_PROOF_WORK:-/tmp/kiln-ranks-proof}"
  proof_python
  ( out="$work"; proof_cli "$src/build-gpu/cli" kiln-cli kiln-worker > "$work/build.out" 2>&1; echo "$cli" > "$work/cli" ) &
  builder=$!
  n="$(nvidia-smi -L | wc -l)"
  bash "$src/bench/gpu/ranks_job.sh" "$out" "$n" || die "ranks_job.sh failed" 1
  per_rank "$job_dir" "$job_dir/logs" "$job_dir/trace"
  wait "$builder"; cli="$(cat "$work/cli" 2> /dev/null)"
  [ -x "$cli" ] || { cat "$work/build.out" >&2; die "no kiln-cli built" 2; }
  rm -rf "$job_agreed"; mkdir -p "$job_agreed"; cp "$job_dir/machine.txt" "$job_agreed/"
  for r in $(ranks_in "$job_dir"); do cp -a "$job_dir/$r" "$job_agreed/$r"; rm -rf "$job_agreed/$r/inductor/triton"; done
  agree "$cli" "$job_agreed" || die "kiln-cli ranks --agree failed ($(tail -3 "$job_agreed/agree.txt"))" 1
  cp "$job_agreed"/ranks_before.txt "$job_agreed"/agree.txt "$job_agreed"/ranks_agreed.txt "$out/"
  say "before: $(head -1 "$out/ranks_before.txt"); after --agree --write: $(head -1 "$out/ranks_agreed.txt")"
  exit 0
fi

# --each-device OUT: Kiln's own re-tune measures every choice on every GPU of this machine (retune
# --each-device, rank 0's cache of the --job run), the hand-back agrees one winner per op from all
# GPUs' times and pins it (--pin: one lookup table, configs device-independent); the job again with
# that table and fresh caches: no rank benchmarks, every rank the same configs; then each rank's own
# kernels against the pinned ones, alternated (RANKS_AB_ROUNDS, default 2).
if [ "${1:-}" = "--each-device" ]; then
  out="${2:?usage: ranks_proof.sh --each-device OUT_DIR (after --job on this machine)}"
  proof_start ranks_each_device "$out" "${KILN_PROOF_WORK:-/tmp/kiln-each-proof}"
  proof_python
  [ -d "$job_dir/rank0/inductor/triton" ] || die "no earlier job here: run ranks_proof.sh --job first" 2
  cp "$job_dir/machine.txt" "$out/machine.txt"
  proof_header "One winner agreed across the machine's GPUs by Kiln's re-tune (issue 43, item 2)"
  proof_cli "$src/build-gpu/cli" kiln-cli kiln-worker
  ranks=($(ranks_in "$job_dir")); n=${#ranks[@]}
  cp -a "$job_dir/rank0/inductor" "$work/root"
  s=$(date +%s)
  "$cli" retune "$work/root" --each-device --json > "$out/each_device_run.json" 2> "$work/retune.err"
  rc=$?; [ $rc -le 1 ] || { cat "$work/retune.err" >&2; die "retune --each-device failed (rc $rc)" 1; }
  say "retune --each-device on $(nvidia-smi -L | wc -l) GPUs: $(( $(date +%s) - s )) s (rc $rc: 1 when a choice failed)"
  "$cli" handback "$work/root" --from "$out/each_device_run.json" --pin "$out/agreed_table.json" > "$out/handback.txt" 2>&1 ||
    die "handback --pin failed ($(tail -3 "$out/handback.txt"))" 1
  say "$(grep -E 'complete op|agreed across devices' "$out/handback.txt")"
  say "$(grep -c ' -> ' "$out/handback.txt") ops pinned into agreed_table.json"
  # The job again: fresh caches, the table loaded on every rank.
  pinned="$work/pinned"; mkdir -p "$pinned"
  s=$(date +%s)
  timeout 480 "$py" -m torch.distributed.run --standalone --nproc_per_node "$n" --log-dir "$work/logs" --redirects 3 --tee 0 \
    "$src/bench/gpu/ranks_job.py" --out "$pinned" --cache-base "$pinned" --pin "$out/agreed_table.json" \
    > "$out/torchrun.log" 2>&1 || die "torchrun failed (torchrun.log)" 1
  say "torchrun with the table: $(( $(date +%s) - s )) s; compile $(cat "$pinned"/rank*/run.json | grep -o '"compile_seconds": [0-9.]*' | cut -d' ' -f2 | paste -sd/) s a rank"
  per_rank "$pinned" "$work/logs" "$work/trace"
  check_no_tables "$pinned"
  read -r n_before d_before <<< "$(count "$job_dir")"; read -r n_after d_after <<< "$(count "$pinned")"
  say "template kernels whose config differs between ranks: the job's own $d_before of $n_before, pinned $d_after of $n_after"
  check "every rank runs the same config for every template kernel (0 differences)" "[ '$d_after' = 0 ] && [ '$n_after' -gt 0 ]"
  whole=1; rounds="${RANKS_AB_ROUNDS:-2}"
  say "A/B from whole caches (FX hits), $rounds rounds ABBA: each rank's own kernels against the pinned ones"
  for round in $(seq 1 "$rounds"); do
    if [ $((round % 2)) = 1 ]; then ab "$round" own "$job_dir"; ab "$round" agreed "$pinned" "$out/agreed_table.json"
    else ab "$round" agreed "$pinned" "$out/agreed_table.json"; ab "$round" own "$job_dir"; fi
  done
  ab_summary
  check "step time with the pinned kernels not worse than with each rank's own (within 5 %)" "not_worse step_ratio 1.05"
  check "GPU kernel time per step with the pinned kernels not worse (within 2 %)" "not_worse gpu_ratio 1.02"
  tar -C "$work" -cJf "$out/ab_runs.tar.xz" --exclude='*/inductor' $(cd "$work" && ls -d ab_* pinned) 2> /dev/null
  exit $failed
fi

out="${1:?usage: bash bench/gpu/ranks_proof.sh OUT_DIR | --job OUT_DIR | --each-device OUT_DIR | --prepare}"
proof_start ranks_proof "$out" "${KILN_PROOF_WORK:-/tmp/kiln-ranks-proof}"
proof_python
{ nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
  "$py" -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'; } > "$out/machine.txt" 2>&1 ||
  die "no GPU or no torch" 2
proof_header "Every rank runs the same kernel (issue 43)"

# 1. the earlier job and the agreed caches
data="${RANKS_DATA:-}"; [ -z "$data" ] && { [ -d "$job_dir/rank0" ] && data="$job_dir" || data="$fixture"; }
before="$work/before"; mkdir -p "$before"
if [ -d "$data" ]; then
  for r in $(ranks_in "$data"); do cp -a "$data/$r" "$before/$r"; done; cp "$data/machine.txt" "$before/" 2> /dev/null
else
  tar -xJf "$data" -C "$before" || die "cannot extract $data" 2
fi
ranks=($(ranks_in "$before")); n=${#ranks[@]}
say "earlier job: $data ($n ranks)"
[ "$(nvidia-smi -L | wc -l)" -ge "$n" ] || die "$n GPUs needed" 2
agreed="${RANKS_AGREED:-}"
if [ -z "$agreed" ] && [ "$data" = "$job_dir" ] && [ -d "$job_agreed/rank0" ]; then agreed="$job_agreed"; fi
if [ -z "$agreed" ] && [ "$data" = "$fixture" ] && [ -d "$src/.carry/ranks-agreed/rank0" ]; then agreed="$src/.carry/ranks-agreed"; fi
if [ -n "$agreed" ]; then
  say "agreed caches: $agreed (kiln-cli ranks --agree --write)"
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
for r in "${ranks[@]}"; do mkdir -p "$after/$r/inductor/cache" && cp "$agreed/$r/inductor/cache/"* "$after/$r/inductor/cache/"; done
s=$(date +%s)
TORCH_TRACE="$work/trace" timeout 480 "$py" -m torch.distributed.run --standalone --nproc_per_node "$n" \
  --log-dir "$work/logs" --redirects 3 --tee 0 "$src/bench/gpu/ranks_job.py" --out "$after" --cache-base "$after" \
  > "$out/torchrun.log" 2>&1 || die "torchrun failed (torchrun.log)" 1
say "torchrun: $(( $(date +%s) - s )) s; compile $(cat "$after"/rank*/run.json | grep -o '"compile_seconds": [0-9.]*' | cut -d' ' -f2 | paste -sd/) s a rank"
per_rank "$after" "$work/logs" "$work/trace"

# 3. no rank benchmarks
check_no_tables "$after"
same_caches() { for r in "${ranks[@]}"; do cmp -s "$agreed/$r/inductor/cache/"* "$after/$r/inductor/cache/"* || return 1; done; }
check "each rank's timing cache is the agreed one, unchanged" same_caches

# 4. template kernel configs across ranks, from the output code: "N D" = the template kernels, and
# those whose config (config_args, num_stages, num_warps) is not the same on all ranks, or that a
# rank lacks
read -r n_before d_before <<< "$(count "$before")"; read -r n_after d_after <<< "$(count "$after")"
say "template kernels whose config differs between ranks: before $d_before of $n_before, after $d_after of $n_after"
check "every rank runs the same config for every template kernel (0 differences)" "[ '$d_after' = 0 ] && [ '$n_after' -gt 0 ]"
[ -z "${cli:-}" ] && [ -x "$src/build-gpu/cli/bin/kiln-cli" ] && cli="$src/build-gpu/cli/bin/kiln-cli"
[ -n "${cli:-}" ] && "$cli" ranks $(for r in "${ranks[@]}"; do echo "$after/$r"; done) > "$out/ranks_after.txt" 2>&1 &&
  say "kiln-cli ranks after: $(head -1 "$out/ranks_after.txt")"

# 5. step times: an A/B on this machine, alternated (ABBA). From whole caches when the earlier job ran
# here (FX hits: each variant runs exactly the kernels its job chose, no compile), else from fresh
# caches seeded with the timing caches (both compile, neither benchmarks).
whole=0; [ -d "$before/rank0/inductor/triton" ] && [ "$want" = "$have" ] && whole=1
say "A/B from $([ $whole = 1 ] && echo 'whole caches (FX hits)' || echo 'timing caches alone')"
agreed_src="$agreed"; [ $whole = 1 ] && agreed_src="$after"
rounds="${RANKS_AB_ROUNDS:-3}"
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) = 1 ]; then ab "$round" own "$before"; ab "$round" agreed "$agreed_src"
  else ab "$round" agreed "$agreed_src"; ab "$round" own "$before"; fi
done
ab_summary
check "step time with the agreed kernels not worse than with each rank's own (same machine, alternated, within 5 %)" "not_worse step_ratio 1.05"
check "GPU kernel time per step with the agreed kernels not worse (within 2 %)" "not_worse gpu_ratio 1.02"
tar -C "$after" --exclude='*/inductor/triton' -cJf "$out/after.tar.xz" . 2>/dev/null
tar -C "$work" -cJf "$out/ab_runs.tar.xz" $(cd "$work" && ls -d ab_*/rank*/run.json ab_*/tables ab_*/torchrun.log 2> /dev/null) 2> /dev/null
say "$([ $failed = 0 ] && echo PASSED || echo FAILED)"
exit $failed
