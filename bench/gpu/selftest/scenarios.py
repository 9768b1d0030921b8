"""NOT the fixture's scenarios: a stand-in for bench/gpu/selftest.sh. It counts the fxgraph entries in
TORCHINDUCTOR_CACHE_DIR as hits and writes the run_*.json shape bundle_proof.sh reads."""
import json
import os

root = os.environ["TORCHINDUCTOR_CACHE_DIR"]
n = sum(len(files) for _, _, files in os.walk(os.path.join(root, "fxgraph")))
run = {"phase": "selftest", "scenarios": {"all": {"status": "ok", "counters": {
    "inductor": {"fxgraph_cache_hit": n, "fxgraph_cache_miss": 0 if n else 1}, "aot_autograd": {}}}}}
json.dump(run, open(os.environ["KILN_SCENARIO_OUT"], "w"))
