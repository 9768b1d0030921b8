#!/usr/bin/env python3
"""One max-autotune compile of a small mm graph in a fresh process, for handback_proof.sh (issue 31).

  [HANDBACK_OP=addmm] python3 handback_compile.py OUT.json [--pin TABLE.json]
TORCHINDUCTOR_CACHE_DIR says which cache. Prints (and writes to OUT.json) the compile's wall time,
whether the output matches eager, and torch's counters: select_algorithm_precompile and every
counter whose name says benchmark. With --pin, the lookup table is loaded first
(config.lookup_table.table + LookupTableChoices), and the output code's path is reported.
"""
import json
import os
import sys
import time

out_path = sys.argv[1]
pin = sys.argv[sys.argv.index("--pin") + 1] if "--pin" in sys.argv else None

import torch  # noqa: E402
from torch._dynamo.utils import counters  # noqa: E402

if pin:
    from torch._inductor import config
    from torch._inductor.lookup_table import LookupTableChoices
    from torch._inductor.virtualized import V

    with open(pin) as f:
        config.lookup_table.table = json.load(f)
    V.set_choices_handler(LookupTableChoices())


# HANDBACK_OP=addmm: a linear layer's x @ w + bias (Inductor's addmm, keyed by alpha and beta too).
op = os.environ.get("HANDBACK_OP", "mm")


def mm(a, b):
    return a @ b


def addmm(a, b, bias):
    return a @ b + bias


torch.manual_seed(0)
a = torch.randn(512, 512, device="cuda", dtype=torch.float16)
b = torch.randn(512, 512, device="cuda", dtype=torch.float16)
args = (a, b) if op == "mm" else (a, b, torch.randn(512, device="cuda", dtype=torch.float16))
fn = mm if op == "mm" else addmm
cf = torch.compile(fn, mode="max-autotune")
counters.clear()
t0 = time.time()
out = cf(*args)
torch.cuda.synchronize()
seconds = time.time() - t0
ref = fn(*args)
flat = {f"{cat}.{k}": v for cat, d in counters.items() for k, v in d.items()}
result = {
    "device": torch.cuda.get_device_name(0),
    "gcnArchName": torch.cuda.get_device_properties(0).gcnArchName,
    "compile_s": round(seconds, 3),
    "output_ok": bool(torch.allclose(out, ref, atol=1e-2, rtol=1e-2)),
    "precompile": counters["inductor"]["select_algorithm_num_precompiles"],
    "precompile_calls": counters["inductor"]["select_algorithm_precompile"],
    "autotune": counters["inductor"]["select_algorithm_autotune"],
    "benchmarks": sum(v for k, v in flat.items() if "benchmark" in k.lower()),
    "counters": flat,
    "cache_dir": os.environ.get("TORCHINDUCTOR_CACHE_DIR"),
    "op": op,
}
with open(out_path, "w") as f:
    json.dump(result, f, indent=1)
print(json.dumps({k: v for k, v in result.items() if k != "counters"}))
