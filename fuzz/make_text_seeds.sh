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
    seed "$(printf '%0.s[' $(seq 1 600))" ;;
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
  *) echo "make_text_seeds.sh: unknown target $target" >&2; exit 2 ;;
esac
