#!/usr/bin/env bash
# Checks bench/gpu/bundle_proof.sh off the GPU machine: (1) with a Python that has no torch it must stop
# with a clear message (exit 2); (2) with the stand-in torch of bench/gpu/selftest/ (NOT torch: an
# independent re-implementation of load_cache_artifacts from torch's sources) every step must run and
# the trees compare equal. usage: bench/gpu/selftest.sh KILN_CLI OUT_DIR
set -uo pipefail
cli="${1:?usage: selftest.sh KILN_CLI OUT_DIR}"; out="${2:?usage: selftest.sh KILN_CLI OUT_DIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out/notorch" "$out/standin"
if python3 -c "import torch" 2>/dev/null; then echo "selftest: this python3 has torch; skipping the no-torch check"; else
  KILN_PYTHON=python3 KILN_CLI="$cli" KILN_PROOF_WORK="$out/work1" "$here/bundle_proof.sh" "$out/notorch" > "$out/notorch.log" 2>&1
  rc=$?
  grep -q "torch is not importable" "$out/notorch.log" && [ $rc = 2 ] || { echo "selftest: no-torch run: rc=$rc"; cat "$out/notorch.log"; exit 1; }
  echo "selftest: no torch -> exit 2: $(grep 'torch is not importable' "$out/notorch.log")"
fi
PYTHONPATH="$here/selftest" KILN_PYTHON=python3 KILN_CLI="$cli" KILN_PROOF_WORK="$out/work2" \
  "$here/bundle_proof.sh" "$out/standin" "$here/selftest/scenarios.py" > "$out/standin.log" 2>&1
rc=$?
cat "$out/standin/proof.md"
[ $rc = 0 ] || { echo "selftest: stand-in run failed: rc=$rc"; tail -20 "$out/standin.log"; exit 1; }
echo "selftest: passed"
