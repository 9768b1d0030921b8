#!/usr/bin/env bash
# Faults cost one choice only (issue 30 item 4), on a GPU: three of the fixture's triton_mm choices get
# a real faulting kernel compiled with nvcc in place of their cubin (same symbol, same parameters):
# one writes to address 8 (illegal address), one spins forever (hang), one writes zeros (wrong values).
# `kiln-cli retune` must report failed / timeout / wrong for exactly those and measure every other choice.
# usage: retune_faults.sh KILN_CLI FIXTURE_TAR OUT_DIR
set -uo pipefail
cli="$1"; tar="$2"; out="$3"
py="${KILN_PYTHON:-/opt/torch/.venv/bin/python}"
w=/tmp/kiln-retune-faults; rm -rf "$w"; mkdir -p "$w"
tar -xJf "$tar" -C "$w" || exit 2
root="$w/inductor"
for mode in 0 1 2; do
  cat > "$w/fault$mode.cu" <<CU
extern "C" __global__ void triton_mm(const void* a, const void* b, unsigned short* out, void* g, void* p) {
#if $mode == 0
  *(volatile int*)8 = 1;
#elif $mode == 1
  for (;;) __nanosleep(1000);
#else
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 512 * 512; i += gridDim.x * blockDim.x) out[i] = 0;
#endif
}
CU
  nvcc -cubin -arch=sm_90a -o "$w/fault$mode.cubin" "$w/fault$mode.cu" || exit 2
done
"$cli" retune "$root" --list --json --op "512, 512" > "$w/inv.json" || exit 2
"$py" - "$w" > "$w/planted.txt" <<'PY'
import json, shutil, sys
w = sys.argv[1]
inv = json.load(open(f"{w}/inv.json"))
tri = [c for c in inv["ops"][0]["choices"] if c["kind"] == "triton"]
for mode, c in zip(("illegal", "hang", "zeros"), tri[:3]):
    shutil.copy(f"{w}/fault{('illegal', 'hang', 'zeros').index(mode)}.cubin", c["binary"])
    print(mode, c["name"])
PY
cat "$w/planted.txt"
t0=$(date +%s.%N)
"$cli" retune "$root" --op "512, 512" --devices 0 --timeout 5 --json > "$out/faults.json" 2> "$out/faults.err"
echo "rc=$? wall $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN{print a-b}') s"
"$cli" retune "$root" --op "512, 512" --devices 0 --timeout 5 > "$out/faults.txt" 2>&1
"$py" - "$w/planted.txt" "$out/faults.json" <<'PY'
import json, sys
planted = dict(l.split()[::-1] for l in open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
want = {"illegal": "failed", "hang": "timeout", "zeros": "wrong"}
bad = 0
for c in d["ops"][0]["choices"]:
    m = c["measured"][0] if c["measured"] else {"status": "none", "why": ""}
    mode = planted.get(c["name"])
    exp = want[mode] if mode else "ok"
    ok = m["status"] == exp
    bad += not ok
    if mode or not ok:
        print(("ok   " if ok else "FAIL ") + f"{mode or 'normal'} {c['name'][:20]}: {m['status']} {m['why'][:160]}")
n_ok = sum(1 for c in d["ops"][0]["choices"] if c["measured"] and c["measured"][0]["status"] == "ok")
print(f"{n_ok} other choices measured ok of {len(d['ops'][0]['choices']) - 3}")
sys.exit(1 if bad else 0)
PY
