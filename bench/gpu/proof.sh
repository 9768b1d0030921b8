#!/usr/bin/env bash
# bench/gpu/proof.sh OUT_DIR [STEP...]: on a GPU machine (torch 2.11.0+cu130, an H100 for the H100
# fixtures), re-run the fixture scenarios against copies of the fixture caches from tests/data and
# compare every FX / AOTAutograd cache key with the fixture's own TORCH_TRACE (trace_keys.py).
# Steps (default: all, in this order): warm cold changed two pgo mega huge
#   warm     h100 cache copy, phase warm: the fixture's warm run hit every graph, so must this one
#   cold     same copy, phase cold (all 8 scenarios): hits where the keys are the fixture's
#   changed  same copy, phase changed (the changed-config graph is in the fixture too)
#   two      two-entries cache copy, phase psmall
#   pgo      pgo cache copy, phases p1 then p2 (p2 reads the profile p1 wrote)
#   mega     h100 copy: phase mega (no reset) saves a Mega-Cache blob; a fresh process loads it
#            into an empty cache dir and runs the same scenarios (no TORCH_TRACE): all hits
#   huge     two-entries copy, phase huge (three 4 GiB tensors): the second entry must be served
#   fresh    (not in the default list) phase cold on an EMPTY cache dir: misses, compiles, autotunes;
#            its keys and the key dirs it writes must be the fixture's
# OUT_DIR gets summary.txt (per step: counters, key comparison) and results.tar.xz (run_*.json,
# traces, stderr, comparisons).
set -uo pipefail
out="$(mkdir -p "${1:?usage: proof.sh OUT_DIR [STEP...]}" && cd "$1" && pwd)"; shift
steps=("$@"); ((${#steps[@]})) || steps=(warm cold changed two pgo mega huge)
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"; here="$src/bench/gpu"
w="${KILN_SCENARIO_WORK:-/tmp/kiln-scenarios}"; rm -rf "$w"; mkdir -p "$w/fx" "$w/res/trace"
summary="$out/summary.txt"; : > "$summary"
log() { echo "$*" | tee -a "$summary"; }

{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  python3 -c "import sys, torch, triton; print(sys.version.split()[0], torch.__version__, triton.__version__)"
  python3 -c "from torch._inductor.codecache import CacheBase, torch_key; s = CacheBase.get_system(); print(s['device'], s['hash'], torch_key().hex())"
} 2>&1 | tee -a "$summary"
# inductor_config[cpp.cxx] is (None, '/opt/gcc/bin/g++') in every fixture key.
if [ ! -x /opt/gcc/bin/g++ ]; then
  mkdir -p /opt/gcc/bin && ln -sf "$(command -v g++)" /opt/gcc/bin/g++ && log "made /opt/gcc/bin/g++ -> $(command -v g++)"
fi
for fx in h100:inductor-h100-torch2.11 two:inductor-two-entries-torch2.11 pgo:inductor-pgo-torch2.11; do
  mkdir -p "$w/fx/${fx%%:*}" && tar -xJf "$src/tests/data/${fx#*:}.tar.xz" -C "$w/fx/${fx%%:*}"
done

# Seconds left before KILN_PROOF_DEADLINE (default 520 s after the start; the device tool's calls end
# at 600): a process never runs past it, and a step that would start with under 20 s is skipped.
left() { echo $(( ${KILN_PROOF_DEADLINE:-520} - SECONDS )); }

# phase NAME CACHE_DIR FIXTURE_TRACE [args...]: one scenarios.py process with TORCH_TRACE, then its
# keys against the fixture's trace.
phase() {
  local name="$1" cache="$2" fixture_trace="$3"; shift 3
  local t0=$SECONDS
  if (( $(left) < 20 )); then log "== $name: skipped (deadline)"; return; fi
  timeout "$(left)" python3 "$here/scenarios.py" --cache-dir "$cache" --out "$w/res/run_$name.json" \
    --trace "$w/res/trace/$name" "$@" > "$w/res/stdout_$name.log" 2> "$w/res/stderr_$name.log"
  log "== $name: rc=$? $((SECONDS - t0)) s"; cat "$w/res/stdout_$name.log" | tee -a "$summary"
  if [ -n "$fixture_trace" ]; then
    python3 "$here/trace_keys.py" "$w/res/trace/$name" --against "$fixture_trace" > "$w/res/keys_$name.txt" 2>&1
    log "   keys vs fixture: rc=$? $(tail -1 "$w/res/keys_$name.txt")"
    grep -E "^(DIFF|NO-MATCH)" "$w/res/keys_$name.txt" | head -20 | tee -a "$summary"
  fi
}

for step in "${steps[@]}"; do
  case "$step" in
    warm) cp -a "$w/fx/h100/inductor" "$w/h100-cache"
          phase warm "$w/h100-cache" "$w/fx/h100/trace/warm" --phase warm ;;
    cold) phase cold "$w/h100-cache" "$w/fx/h100/trace/cold" --phase cold ;;
    changed) phase changed "$w/h100-cache" "$w/fx/h100/trace/changed" --phase changed ;;
    two) cp -a "$w/fx/two/inductor" "$w/two-cache"
         phase psmall "$w/two-cache" "$w/fx/two/trace/psmall" --phase psmall ;;
    huge) [ -d "$w/two-cache" ] || cp -a "$w/fx/two/inductor" "$w/two-cache"
          phase huge "$w/two-cache" "$w/fx/two/trace/huge" --phase huge ;;
    pgo) cp -a "$w/fx/pgo/inductor" "$w/pgo-cache"
         phase p1 "$w/pgo-cache" "$w/fx/pgo/trace/p1" --phase p1
         phase p2 "$w/pgo-cache" "$w/fx/pgo/trace/p2" --phase p2 ;;
    mega) [ -d "$w/h100-cache" ] || cp -a "$w/fx/h100/inductor" "$w/h100-cache"
          phase mega "$w/h100-cache" "$w/fx/h100/trace/warm" --phase mega --save-artifacts "$w/megacache.bin"
          mkdir -p "$w/empty-cache"; t0=$SECONDS
          (( $(left) >= 20 )) && timeout "$(left)" python3 "$here/scenarios.py" --phase warm --scenarios pointwise_dynamic,mlp_train,max_autotune_mm \
            --cache-dir "$w/empty-cache" --load-artifacts "$w/megacache.bin" --out "$w/res/run_megaload.json" \
            > "$w/res/stdout_megaload.log" 2> "$w/res/stderr_megaload.log"
          log "== megaload (empty cache dir + load_cache_artifacts, no TORCH_TRACE): rc=$? $((SECONDS - t0)) s"
          cat "$w/res/stdout_megaload.log" | tee -a "$summary" ;;
    fresh) mkdir -p "$w/fresh-cache"
           phase fresh "$w/fresh-cache" "$w/fx/h100/trace/cold" --phase cold --mm-log "$w/res/mm_log_fresh.json"
           (cd "$w/fresh-cache" && ls -d fxgraph/*/* aotautograd/* | sort) > "$w/res/keydirs_fresh.txt"
           (cd "$w/fx/h100/inductor" && ls -d fxgraph/*/* aotautograd/* | sort) > "$w/res/keydirs_fixture.txt"
           log "   key dirs written: $(wc -l < "$w/res/keydirs_fresh.txt"); not in the fixture: $(comm -23 "$w/res/keydirs_fresh.txt" "$w/res/keydirs_fixture.txt" | tr '\n' ' ')" ;;
    *) log "unknown step $step" ;;
  esac
  (cd "$w/res" && tar -cJf "$out/results.tar.xz" .)  # after every step: a later timeout loses nothing
done
log "results: $(du -h "$out/results.tar.xz" | cut -f1), $SECONDS s in all"
