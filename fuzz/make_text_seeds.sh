#!/usr/bin/env bash
# fuzz/make_text_seeds.sh TARGET DIR TEST_DATA: seeds for the text fuzzers (scripts/fuzz).
#   guard_parser: guards as torch prints them and restrictions as specs write them (the first byte
#                 picks the dialect: even = guard, odd = restriction)
#   timing_cache: the fixtures' timing cache files (cache/<hash>) and hostile variants
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
  *) echo "make_text_seeds.sh: unknown target $target" >&2; exit 2 ;;
esac
