#!/usr/bin/env bash
# fuzz/make_text_seeds.sh TARGET DIR TEST_DATA: seeds for the text fuzzers (scripts/fuzz).
#   guard_parser: guards as torch prints them and restrictions as specs write them (the first byte
#                 picks the dialect: even = guard, odd = restriction)
#   timing_cache: the fixtures' timing cache files (cache/<hash>) and hostile variants
#   trace_reader: pieces of the fixtures' TORCH_TRACE logs (the first records of each, and slices of
#                 300 lines) and hostile logs (an event before any compile, a cut-off tail, bad UTF-8)
#   startup_spans: trace_reader's seeds (the spans are in the fixtures' logs); the hostile span logs
#                 are fuzz/regressions-startup_spans/, replayed first on every run
#   fingerprint_reader: fuzz/seeds-fingerprint/ (a fingerprint `kiln-cli env --json` wrote for the
#                 H100 fixture) and hostile variants (versions, duplicate names, wrong types)
#   retune_run:   a small saved re-tune (`retune --json`) and issue 42's hostile variants (wrong types,
#                 a 23-digit number, negative and NaN times, a device listed twice)
#   fleet_value:  "<key>\n<value>" as `handback --fetch` reads them, and the same variants
#   kernel_module_reader: the fixtures' Triton kernel modules (`<2>/c<51>.py` with a @triton_heuristics
#                 decorator), output code modules (`# AOT ID: ` first) and saved stderr logs, and hostile variants (a launch value beyond int64,
#                 lines broken by '\r', an exception line whose tail never closes); issue 42's 50 KB and
#                 30 KB inputs are in fuzz/regressions-kernel_module_reader/
#   kernel_metadata: the fixtures' Triton kernel metadata (`<key dir>/<name>.json`), alone and with the
#                 heads of its `.source` and `.ptx` after a NUL (the fuzzer's split), and hostile variants
#                 (wrong types, numbers beyond int and int64, negative sizes, a HIP arch, heads whose
#                 `loc("` or `.target` never ends)
set -euo pipefail
target="$1" dir="$2" data="$3"
mkdir -p "$dir"
n=0
seed() { printf '%s' "$1" >"$dir/seed-$n"; n=$((n + 1)); }
case "$target" in
  guard_parser)
    for g in "L['t0'] == 8" "Eq(Mod(L['t0'], 16), 0) and L['t1'] <= 4096" "2 <= L['t0'] and L['t0'] <= 1024" \
             "Ne(L['t0'], 1) and (L['t0'] // 2) * 2 == L['t0']" "Max(1, L['t0']) < Min(L['t1'], 64)" \
             "L['t0'] * L['t1'] + 3 >= -L['t2'] ** 2" "not (L['t0'] == 0 or L['t1'] != 2)"; do
      seed "g$g"
    done
    for r in "BLOCK_M * BLOCK_N <= 4096" "M % BLOCK_M == 0 and N % BLOCK_N == 0" "2 ** -1 == 0.5" \
             "-9223372036854775808 // -1 > 0" "P ** 9223372036854775807 > 0" "7 / 2 == 3.5 && !0 || 1"; do
      seed "r$r"
    done ;;
  timing_cache)
    tmp="$dir.tmp"
    rm -rf "$tmp" && mkdir -p "$tmp"
    for a in "$data"/*.tar.xz; do tar -xJf "$a" -C "$tmp" --wildcards '*/cache/*' 2>/dev/null || true; done
    find "$tmp" -type f -path '*/cache/*' | while read -r f; do cp "$f" "$dir/fixture-$(basename "$f")"; done
    rm -rf "$tmp"
    seed '{"cache": {"kiln_matmul_cpu": 7}}'
    seed '{"system": {"hash": "x"}, "cache": {"mm": {"k": {"highest": {"a": NaN, "b": Infinity, "c": -Infinity}}}}}'
    seed '{"cache": {"mm": {"k": {"highest": {"a": 1e308, "b": -0.0, "c": 18446744073709551616}}}}}'
    seed "$(printf '%0.s[' $(seq 1 600))"
    # Issue 42: wrong-typed system fields, sizes of 2^63-1 and -256, times of -1000, NaN and strings,
    # a 23-digit number, and an op of many inputs keys (nlohmann's ordered parse was quadratic in them).
    seed '{"system": {"device": {"name": 5}, "hash": 7}, "cache": {}}'
    seed '{"system": {"device": "x", "version": {"cuda": 13.0}}, "cache": {"mm": {}}}'
    k="('cuda', 'torch.float16', 512, 512, 512, 1, 0)"
    for size in 9223372036854775807 -256; do
      seed '{"cache": {"mm": {"[('"'cuda', 'torch.float16', $size, 512, 512, 1, 0), $k"']": {"highest":
{"mm-c1": -1000, "triton_mm-c2": NaN, "triton_mm-c3": "8", "triton_mm-c4": 12345678901234567890123}}}}}'
    done
    many='{"cache": {"mm": {'
    for i in $(seq 1 3000); do many+="\"[('cuda', 'torch.float16', $i, 8, 8, 1, 0)]\": {\"highest\": {\"mm-c1\": 0.$i}}, "; done
    seed "${many%, }}}}"
    seed '{"cache": {"mm": {"k": {"highest": {"a": 1}}, "k": {"highest": {"a": 2}}, "k": 3}}}' ;;
  retune_run)
    sys='"recorded_for": {"system_hash": "h", "device": "NVIDIA H100 80GB HBM3", "triton": "t", "cuda": "12.8"}'
    m='{"device": 0, "status": "ok", "ms": 0.5, "spread_ms": 0.01, "why": ""}'
    c1='{"name": "mm-c1", "kind": "extern", "runnable": true, "why": "", "recorded_ms": 0.6, "measured": ['"$m"']}'
    c2='{"name": "triton_mm-c2", "kind": "triton", "runnable": true, "why": "", "recorded_ms": Infinity, "measured": ['"$m"']}'
    op='{"op": "mm", "inputs": "[(\"cuda\", \"torch.float16\", 8, 8, 8, 1, 0)]", "precision": "highest", '"$sys"', "choices": ['
    dev='"devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "arch": "sm_90"}]'
    seed '{'"$dev"', "ops": ['"$op$c1, $c2"']}]}'
    for bad in '"runnable": "yes"' '"name": 123' '"device": 12345678901234567890123' '"ms": -1000' '"ms": NaN' \
               '"ms": "0.5"' '"measured": 7' '"why": []'; do
      # After the field it replaces: a key given twice keeps its last value.
      seed '{'"$dev"', "ops": ['"$op$c1"', '"${c2%\}}, $bad"'}]}]}'
      seed '{'"$dev"', "ops": ['"$op$c1"'], '"$bad"'}]}'
      seed '{'"$dev"', "ops": ['"$op$c1"', '"${c2/\"why\": \"\"\}/$bad\}}"']}]}'
    done
    seed '{"devices": [{"index": 0, "name": "A"}, {"index": 0, "name": "B"}, {"index": "1", "name": 2}], "ops": []}'
    seed '{"devices": [], "ops": [{"op": 1}, 7, {"op": "mm", "inputs": "", "precision": "", "choices": [1, {}]}]}' ;;
  fleet_value)
    key='kiln:retuned:v1:NVIDIA H100 80GB HBM3:12.8:0123456789abcdef:mm:fedcba9876543210'
    sys='"system": {"device": {"name": "NVIDIA H100 80GB HBM3"}, "version": {"triton": "t", "cuda": "12.8"}, "hash": "h"}'
    head='"op": "mm", "inputs_key": "[]", "precision": "highest", "device": "NVIDIA H100 80GB HBM3", "host": "a", "published": 1'
    seed "$key"$'\n''{'"$sys, $head"', "choices": {"mm-c1": {"kind": "extern", "ms": 0.5, "spread_ms": 0.01}}}'
    for bad in '"kind": 7, "ms": 0.5' '"ms": -1000' '"ms": NaN' '"ms": Infinity' '"ms": "0.5"' \
               '"ms": 12345678901234567890123' '"ms": 0.5, "spread_ms": -1'; do
      seed "$key"$'\n''{'"$sys, $head"', "choices": {"mm-c1": {'"$bad"'}}}'
    done
    seed "$key"$'\n''{"system": 7, "op": 1, "choices": []}'
    seed "$key"$'\n''{'"$sys"', "op": "mm", "host": 5}' ;;
  trace_reader)
    tmp="$dir.tmp"
    rm -rf "$tmp" && mkdir -p "$tmp"
    for a in "$data"/*.tar.xz; do tar -xJf "$a" -C "$tmp" --wildcards '*/trace/*' 2>/dev/null || true; done
    i=0
    find "$tmp" -type f -name '*.log' | sort | while read -r f; do
      i=$((i + 1))
      head -c 65536 "$f" >"$dir/head-$i"
      split -l 300 -d -a 3 "$f" "$tmp/slice-$i-"
      # sed, not head: head exiting early can kill sort with SIGPIPE, which pipefail makes a failed run
      find "$tmp" -maxdepth 1 -name "slice-$i-*" | sort | sed -n 1,40p | while read -r s; do
        head -c 262144 "$s" >"$dir/$(basename "$s")"
      done
    done
    rm -rf "$tmp"
    h='V1126 01:16:45.677000 1031 torch/_inductor/compile_fx.py:1120] '
    seed "$h"'{"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"}}
	{"key": "fabc", "cache_state": "miss", "components": ["[x] a: 1"]}
'
    seed "$h"'{"dynamo_start": {"stack": [{"line": 3, "name": "f", "filename": 0}]}, "frame_id": 0, "frame_compile_id": 0}
'"$h"'{"str": ["/x.py", 0]}
'"$h"'{"artifact": {"name": "aotautograd_cache_hit", "encoding": "json"}, "frame_id": 0, "frame_compile_id": 0}
	{"key": "aabc", "cache_state": "hit", "time_saved_ms": 1e308}
'"$h"'{"artifact": {"name": "fx_graph_cache_hit", "encoding": "json"}}
	{"key": "fab'
    seed "$h"'{"artifact": {"name": "fx_graph_cache_bypass", "encoding": "json"}}
	{"key": "f'$'ÿþ''", "reason": "x"}
'"$h"'{"compilation_metrics": {"entire_frame_compile_time_s": -1, "co_firstlineno": 1e30}}
' ;;
  startup_spans)
    bash "${BASH_SOURCE[0]}" trace_reader "$dir" "$data" ;;
  fingerprint_reader)
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    for f in "$here"/seeds-fingerprint/*.json; do cp "$f" "$dir/fixture-$(basename "$f")"; done
    seed '{"kiln_fingerprint": 4294967297, "components": []}'
    seed '{"kiln_fingerprint": 1, "components": [{"name": "a", "scope": "machine"}, {"name": "a", "scope": "install"}],
"facts": [{"name": "a", "value": "x", "scope": "process"}], "unknown": [{"name": "a"}, {"name": "b", "why": 7}]}'
    seed '{"kiln_fingerprint": 1.0, "components": {}}'
    seed '{"kiln_fingerprint": 1, "components": [{"name": "x", "scope": "galaxy"}], "notes": [1, "n"]}'
    seed '{"kiln_fingerprint": -1}' ;;
  kernel_module_reader)
    tmp="$dir.tmp"
    rm -rf "$tmp" && mkdir -p "$tmp"
    for a in "$data"/*.tar.xz; do
      mkdir -p "$tmp/$(basename "$a")"
      tar -xJf "$a" -C "$tmp/$(basename "$a")" --wildcards '*.py' '*stderr*.log' 2>/dev/null || true
    done
    find "$tmp" -type f -name '*.py' | sort | xargs -r grep -l '@triton_heuristics' | sed -n 1,60p |
      while read -r f; do cp "$f" "$dir/module-$(basename "$f")"; done
    find "$tmp" -type f -name '*.py' | sort | xargs -r grep -l '^# AOT ID: ' | sed -n 1,40p |
      while read -r f; do cp "$f" "$dir/output-$(basename "$f")"; done
    find "$tmp" -type f -name '*stderr*.log' -size +0 | sort | while read -r f; do
      cp "$f" "$dir/log-$(basename "$(dirname "$f")")-$(basename "$f")"
    done
    rm -rf "$tmp"
    seed $'@triton_heuristics.template(\nnum_stages=99999999999999999999999,\nnum_warps=4,\ntriton_meta={\'signature\': {\'a\': \'*fp16\'}, \'constants\': {}}, inductor_meta={\'kernel_name\': \'k\',\n\'config_args\': {\'BLOCK_M\': 64}},\n)\n@triton.jit\ndef triton_mm(a):\n    M = 512\n    N = 512\n'
    seed $'AUTOTUNE mm(512x512,\r 512x512)\n  mm 0.0100 ms 100.0%\r x=1\n  t 1e9 ms <DIVIDED BY ZERO ERROR> \nSingleProcess AUTOTUNE benchmarking takes 1 s\n'
    seed $'E] Exception a\r] Exception b for benchmark choice C(m, x) for benchmark choice D(n,\n] Exception ) for benchmark choice E(o, p)\r\n' ;;
  kernel_metadata)
    # A seed with a NUL: the metadata, then the heads of the key dir's .source and .ptx.
    seed_heads() { { printf '%s' "$1"; printf '\0'; printf '%s' "$2"; } >"$dir/seed-$n"; n=$((n + 1)); }
    tmp="$dir.tmp"
    rm -rf "$tmp" && mkdir -p "$tmp"
    for a in "$data"/*.tar.xz; do
      mkdir -p "$tmp/$(basename "$a")"
      tar -xJf "$a" -C "$tmp/$(basename "$a")" --wildcards '*/triton/*/*/*.json' '*/triton/*/*/*.source' \
        '*/triton/*/*/*.ptx' 2>/dev/null || true
    done
    find "$tmp" -type f -path '*/triton/*' -name '*.json' ! -name '__grp__*' | sort | sed -n 1,40p |
      while read -r f; do
        i=$((${i:-0} + 1))
        cp "$f" "$dir/meta-$i"
        stem="${f%.json}"
        if [ -f "$stem.source" ] && [ -f "$stem.ptx" ]; then
          { cat "$f"; printf '\0'; head -c 1024 "$stem.source"; head -c 2048 "$stem.ptx"; } >"$dir/keydir-$i"
        fi
      done
    rm -rf "$tmp"
    m='"target": {"backend": "cuda", "arch": 90, "warp_size": 32}, "num_warps": 4, "num_ctas": 1, "shared": 163840,
"global_scratch_size": 0, "global_scratch_align": 1, "profile_scratch_size": 0, "profile_scratch_align": 1,
"cluster_dims": [1, 1, 1], "tensordesc_meta": [], "launch_cooperative_grid": false, "launch_pdl": false,
"name": "triton_mm"'
    # Issue 42 #7: after the field it replaces (a key given twice keeps its last value).
    for bad in '"num_warps": "8"' '"name": 123' '"name": null' '"shared": 12345678901234567890123' '"shared": -1' \
               '"num_ctas": 2147483648' '"num_warps": 4.5' '"num_warps": 1e308' '"global_scratch_size": -1' \
               '"global_scratch_size": 9223372036854775807' '"global_scratch_align": 18446744073709551615' \
               '"profile_scratch_size": -9223372036854775808' '"target": {"backend": "hip", "arch": "gfx942"}' \
               '"target": {"arch": 1e400}' '"target": {"arch": -90}' '"target": 7' '"cluster_dims": [1, "2", 1]' \
               '"cluster_dims": [-1, 1, 1]' '"cluster_dims": [4294967296, 1, 1]' '"cluster_dims": [2, 1]' \
               '"launch_pdl": "yes"' '"launch_cooperative_grid": 1' '"tensordesc_meta": {"a": 1}' \
               '"tensordesc_meta": [{}]'; do
      seed '{'"$m, $bad"'}'
    done
    seed '[{'"$m"'}]'
    seed "{\"a\": $(printf '%0.s[' $(seq 1 600))"
    key="c$(printf '%0.sa' $(seq 1 51))"
    loc='#loc = loc("/tmp/torchinductor_root/aa/'"$key"'.py":18:0)'
    seed_heads '{'"$m"'}' "$loc"$'\n.version 8.7\n.target sm_90a\n.address_size 64\n'
    seed_heads '{}' $'#loc = loc("/tmp/x/'"${key:0:40}"$'.py":1:0)\n#loc1 = loc("'"$key"$'.py")\n.target sm_\n.target'
    seed_heads '{"name": ""}' $'#loc = loc("/'"$key"$'.py\n.target    sm_100f'
    seed_heads '{"target": {"arch": 120}}' "$(printf '%0.sloc("' $(seq 1 2000))"
    seed_heads '{}' "" ;;
  *) echo "make_text_seeds.sh: unknown target $target" >&2; exit 2 ;;
esac
