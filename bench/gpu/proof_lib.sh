# Sourced by the GPU proof scripts (bundle_proof.sh, portable_proof.sh, rebench_proof.sh): the report,
# its say/die/check helpers, torch's interpreter and the kiln-cli under test, written once.

# proof_start NAME OUT_DIR WORK_DIR: OUT_DIR made absolute, WORK_DIR emptied, $report started.
proof_start() {
  proof_name="$1"; out="$2"; work="$3"
  mkdir -p "$out"; out="$(cd "$out" && pwd)"
  rm -rf "$work"; mkdir -p "$work"
  report="$out/proof.md"; : > "$report"
  failed=0
}
say() { echo "$*" | tee -a "$report"; }
die() { echo "$proof_name: $1" >&2; echo "FAILED: $1" >> "$report"; exit "${2:-1}"; }
check() { if eval "$2"; then say "ok    $1"; else say "FAIL  $1"; failed=1; fi; }

# $py: KILN_PYTHON, else torch's venv on the device machines, else python3.
proof_python() {
  py="${KILN_PYTHON:-}"
  [ -z "$py" ] && { [ -x /opt/torch/.venv/bin/python ] && py=/opt/torch/.venv/bin/python || py=python3; }
  command -v "$py" > /dev/null || die "no Python at '$py' (set KILN_PYTHON)" 2
}

# proof_header TITLE: the report's title, date, commit and $out/machine.txt.
proof_header() {
  say "# $1 ($(date -u +%F), commit $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo '?'))"
  say '```'; tee -a "$report" < "$out/machine.txt"; say '```'
}

# proof_cli BUILD_DIR TARGET...: $cli is KILN_CLI, else the targets built in BUILD_DIR (no GUI, no tests;
# CLI11 from .carry/cli11 when the machine has none).
proof_cli() {
  local b="$1"; shift
  cli="${KILN_CLI:-}"
  if [ -z "$cli" ]; then
    local prefix=()
    [ -d "$src/.carry/cli11/usr" ] && prefix=("-DCMAKE_PREFIX_PATH=$src/.carry/cli11/usr")
    cmake -S "$src" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_GUI=OFF -DKILN_BUILD_TESTS=OFF \
      -DKILN_BUILD_BENCH=OFF "${prefix[@]}" > "$out/cmake.log" 2>&1 ||
      { tail -30 "$out/cmake.log" >&2; die "cmake failed (CLI11 missing? see bench/gpu/README.md for .carry/)" 2; }
    cmake --build "$b" -j"$(nproc)" --target "$@" > "$out/build.log" 2>&1 ||
      { grep -E "error" -A3 "$out/build.log" | head -40 >&2; die "build failed" 2; }
    cli="$b/bin/kiln-cli"
  fi
  "$cli" --version > /dev/null || die "no kiln-cli at $cli" 2
}
