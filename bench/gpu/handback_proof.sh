#!/usr/bin/env bash
# The GPU proof of issue 31 (hand re-tuned results to torch), one call on the device machine:
#   1. a torch-made max-autotune cache (a 512x512 f16 mm graph, handback_compile.py);
#   2. baseline: a copy without its FX graph, AOTAutograd entries and timing cache: torch recompiles
#      and autotunes (precompiles and benchmarks > 0);
#   3. `kiln-cli retune` measures the cache's choices; its timings alone, written by `--write` into
#      a copy stripped the same way: torch precompiles and benchmarks nothing, the output is right;
#   4. the same through Redis: `--publish`, then `--fetch … --write` into a fresh copy;
#   5. `--pin`: the lookup table alone (no timing cache): 0 benchmarks, and the output code holds
#      exactly the pinned config;
#   6. `--shard 0/2` + `--shard 1/2` published to one Redis db = one unsharded run's keys;
#   7. across GPU kinds: a cache whose only timings another kind wrote (on an H200: the H100 fixture;
#      on an H100: the H200's file of the H100-then-H200 fixture) re-tuned and written here; torch's
#      compile of the fixture's mm scenario autotunes without it and benchmarks nothing with it.
# usage: bench/gpu/handback_proof.sh OUT_DIR
# env: KILN_CLI (a kiln-cli beside its kiln-worker), KILN_PYTHON, REDIS_SERVER (a redis-server binary),
#      HANDBACK_CROSS_ONLY=1 (step 7 alone), HANDBACK_OP=addmm (steps 1-6 on a linear layer's addmm),
#      KILN_PROOF_WORK (scratch, default /tmp/kiln-handback-proof).
set -uo pipefail
out="${1:?usage: bench/gpu/handback_proof.sh OUT_DIR}"
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$src/bench/gpu/proof_lib.sh"
proof_start handback_proof "$out" "${KILN_PROOF_WORK:-/tmp/kiln-handback-proof}"
proof_python
if [ -z "${KILN_CUBLAS:-}" ]; then  # retune's extern choices (as retune_proof.sh finds it)
  KILN_CUBLAS="$(find /opt/torch/.venv -name 'libcublas.so.*' 2>/dev/null | head -1)"
  export KILN_CUBLAS
fi
{ nvidia-smi -L; "$py" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"; } \
  > "$out/machine.txt" 2>&1 || die "no GPU or no torch" 2
proof_header "Hand-back proof (issue 31)"
proof_cli "$work/build" kiln-cli kiln-worker
card="$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
comp="$src/bench/gpu/handback_compile.py"
log="$out/commands.log"; : > "$log"
k() { echo "+ kiln-cli $*" >> "$log"; "$cli" "$@" >> "$log" 2>&1; }
field() { "$py" -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
compile() {  # compile NAME DIR [--pin TABLE]: one fresh process
  local name="$1" dir="$2"; shift 2
  TORCHINDUCTOR_CACHE_DIR="$dir" "$py" "$comp" "$work/$name.json" "$@" > "$work/$name.log" 2>&1 ||
    { tail -20 "$work/$name.log" >> "$log"; }
  say "$(printf '%-10s %-28s' "$name" "$card") $(tail -1 "$work/$name.log")"
}
strip() { rm -rf "$2"; cp -a "$1" "$2"; rm -rf "$2/fxgraph" "$2/aotautograd" "$2/cache"; }

if [ -z "${HANDBACK_CROSS_ONLY:-}" ]; then
# redis-server on loopback, no persistence
rs="${REDIS_SERVER:-redis-server}"; port=6399
"$rs" --port $port --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --dir "$work" > "$work/redis.log" 2>&1 ||
  die "redis-server did not start" 2
sleep 0.5
url() { echo "redis://127.0.0.1:$port/$1"; }

# 1. torch's own cache
compile made "$work/orig"
check "torch made a timing cache" "ls '$work/orig/cache/'* > /dev/null 2>&1"
# 2. baseline
strip "$work/orig" "$work/none"
compile baseline "$work/none"
check "baseline: torch precompiles and benchmarks (> 0)" \
  "[ \$(field '$work/baseline.json' precompile) -gt 0 ] && [ \$(field '$work/baseline.json' benchmarks) -gt 0 ]"
# 3. retune, then its timings alone
rm -rf "$work/tuned"; cp -a "$work/orig" "$work/tuned"; rm -rf "$work/tuned/fxgraph" "$work/tuned/aotautograd"
t0=$(date +%s.%N)
"$cli" retune "$work/tuned" --json > "$work/run.json" 2> "$work/retune.err"; rc=$?
say "retune (all GPUs) rc=$rc in $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN{printf "%.1f", a-b}') s on $card"
cat "$work/retune.err" >> "$log"
cp "$work/run.json" "$out/retune_run.json"
rm -rf "$work/tuned/cache"
k handback "$work/tuned" --from "$work/run.json" --write
check "handback --write wrote this GPU's file" "ls '$work/tuned/cache/'* > /dev/null 2>&1 && cmp -s <(ls '$work/orig/cache') <(ls '$work/tuned/cache')"

compile written "$work/tuned"
# torch's own timing cache, same setup: what torch does on a full hit (its precompiles are the control)
rm -rf "$work/own"; cp -a "$work/orig" "$work/own"; rm -rf "$work/own/fxgraph" "$work/own/aotautograd"
compile own "$work/own"
zero() { check "$1: 0 autotune, 0 benchmarks, output right (precompiles $(field "$work/$2.json" precompile), torch's own cache: $(field "$work/own.json" precompile))" \
  "[ \$(field '$work/$2.json' autotune) -eq 0 ] && [ \$(field '$work/$2.json' benchmarks) -eq 0 ] && [ \$(field '$work/$2.json' output_ok) = True ]"; }
zero "torch's own timing cache (control)" own
zero "after handback --write" written
# 4. through Redis
k handback --from "$work/run.json" --publish "$(url 1)" --python "$py"
strip "$work/orig" "$work/fleet"
k handback --fetch "$(url 1)" --write "$work/fleet"
compile fetched "$work/fleet"
zero "after --publish, --fetch --write (fresh dir)" fetched
# 5. pin
strip "$work/orig" "$work/pinned"
k handback "$work/pinned" --from "$work/run.json" --pin "$work/table.json"
cp "$work/table.json" "$out/lookup_table.json"
compile pinned "$work/pinned" --pin "$work/table.json"
check "with --pin: 0 benchmarks, output right" \
  "[ \$(field '$work/pinned.json' benchmarks) -eq 0 ] && [ \$(field '$work/pinned.json' output_ok) = True ]"
"$py" - "$work/table.json" "$work/pinned" > "$work/pin_check.txt" 2>&1 <<'PY'
import json, sys, glob, os
table = json.load(open(sys.argv[1]))
cfg = list(table.values())[0][0]
print("pinned:", json.dumps(cfg))
codes = [p for p in glob.glob(os.path.join(sys.argv[2], "*", "*.py")) if "def call(" in open(p).read()]
code = "\n".join(open(p).read() for p in codes)
if cfg["template_id"].startswith("aten::"):
    ok = ("extern_kernels." + cfg["template_id"][6:] + "(") in code and "triton_tem" not in code
    ok = ok or (cfg["template_id"] == "aten::addmm" and "extern_kernels.addmm(" in code)
else:
    ok = all(f"{k} : tl.constexpr = {cfg[k]}" in code for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K")) and \
         f"num_warps={cfg['num_warps']}" in code
print("output code:", codes)
print("its lines:", sorted({l.strip() for l in code.splitlines()
                            if "tl.constexpr =" in l or "num_warps=" in l or "extern_kernels." in l})[:14])
print("exactly the pinned config:", ok)
PY
cat "$work/pin_check.txt" >> "$log"; tail -4 "$work/pin_check.txt" | tee -a "$report"
check "with --pin: the output code runs exactly the pinned config" "grep -q 'exactly the pinned config: True' '$work/pin_check.txt'"
# 6. shards
k handback --from "$work/run.json" --publish "$(url 2)"
rm -rf "$work/s"; cp -a "$work/orig" "$work/s"
"$cli" retune "$work/s" --shard 0/2 --publish "$(url 3)" >> "$log" 2>&1
"$cli" retune "$work/s" --shard 1/2 --publish "$(url 3)" >> "$log" 2>&1
keys() { "${REDIS_CLI:-redis-cli}" -p $port -n "$1" --raw KEYS 'kiln:retuned:*' | sort; }
keys 2 > "$work/keys_unsharded.txt"; keys 3 > "$work/keys_sharded.txt"
cat "$work/keys_unsharded.txt" >> "$log"
check "--shard 0/2 + 1/2 (each measured) = the unsharded run's keys" \
  "[ -s '$work/keys_unsharded.txt' ] && cmp -s '$work/keys_unsharded.txt' '$work/keys_sharded.txt'"
"${REDIS_CLI:-redis-cli}" -p $port shutdown nosave > /dev/null 2>&1
fi
# 7. cross GPU kind: a timing cache written on one kind, re-tuned and written on another.
#    On an H200: the H100 fixture. On an H100: the fixture the H200 used, its H100 file removed, so
#    that the only timings are the H200's. First a control (torch autotunes), then after
#    `kiln-cli retune --write` (torch benchmarks nothing).
cross() {  # cross NAME ROOT: torch's max-autotune mm scenario on ROOT, one fresh process
  CXX=/opt/gcc/bin/g++ "$py" "$src/bench/gpu/scenarios.py" --phase warm --scenarios max_autotune_mm --cache-dir "$2" \
    --out "$out/cross_$1.json" > "$work/cross_$1.log" 2>&1
  "$py" - "$out/cross_$1.json" "$1" "$card" "$work/cross_$1.log" <<'PY' | tee -a "$report"
import json, sys
r = json.load(open(sys.argv[1]))["scenarios"]["max_autotune_mm"]
c = {f"{a}.{k}": v for a, d in r["counters"].items() for k, v in d.items()}
b = sum(v for k, v in c.items() if "benchmark" in k.lower())
log = open(sys.argv[4], errors="replace").read()
tables = log.count("AUTOTUNE mm(") + log.count("AUTOTUNE addmm(") + log.count("AUTOTUNE bmm(")
print(f"cross kind, {sys.argv[2]} on {sys.argv[3]}: status {r['status']}, {r['seconds']} s, "
      f"choice autotuning (AUTOTUNE tables) {tables}, benchmark calls {b}, "
      f"precompiles {c.get('inductor.select_algorithm_num_precompiles', 0)}")
PY
}
fx="$work/fx"; rm -rf "$fx"; mkdir -p "$fx"
if echo "$card" | grep -q H200; then
  tar -xJf "$src/tests/data/inductor-h100-torch2.11.tar.xz" -C "$fx"; from="H100"
else
  tar -xJf "$src/tests/data/inductor-h100-then-h200-torch2.11.tar.xz" -C "$fx"; from="H200"
  for f in "$fx/inductor/cache/"*; do  # keep only the H200's timing cache
    "$py" -c 'import json,sys; sys.exit("H100" not in json.load(open(sys.argv[1]))["system"]["device"]["name"])' "$f" && rm -f "$f"
  done
fi
root="$fx/inductor"; rm -rf "$root/fxgraph" "$root/aotautograd"
say "cross kind: timing cache files before: $(for f in "$root"/cache/*; do "$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["system"]["device"]["name"])' "$f"; done | tr '\n' ',')"
rm -rf "$work/control"; cp -a "$root" "$work/control"
cross control "$work/control"
check "cross kind: without Kiln, torch on this $card autotunes the $from-tuned cache (benchmarks > 0)" \
  "grep -q 'control on .*AUTOTUNE tables) [1-9]' '$report'"
k retune "$root" --write
say "cross kind: timing cache files after: $(for f in "$root"/cache/*; do "$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["system"]["device"]["name"])' "$f"; done | tr '\n' ',')"
cross written "$root"
check "cross kind: after kiln-cli retune --write on this $card, torch autotunes nothing (no choice benchmarked)" \
  "grep -q 'written on .*status ok.*AUTOTUNE tables) 0,' '$report'"
(cd "$work" && tar -czf "$out/details.tgz" *.json *.txt *.log 2>/dev/null)
exit "$failed"
