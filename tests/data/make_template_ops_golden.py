"""For every GEMM template kernel in a cache's output code, the op torch generated it for, read from
the output code's own "Graph fragment" comment (the aten call and its operands' "dtype[sizes][strides]"
types), independently of Kiln's reading of the kernel module. Standard library only.

usage: python3 make_template_ops_golden.py CACHE_ROOT > golden.json
"""
import json
import os
import re
import sys

root = sys.argv[1]
TYPE = re.compile(r'^#\s+%(\w+) : Tensor "(\w+)\[([^\]]*)\]\[([^\]]*)\]')
CALL = re.compile(r'^#\s+%\w+ : .*call_function\[target=torch\.ops\.aten\.(mm|addmm|bmm|baddbmm)\.default\]\(args = \(([^)]*)\)')
DT = {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}
out = {}
for d, _, files in os.walk(root):
    if "/triton" in d or "/fxgraph" in d or "/aotautograd" in d:
        continue
    for f in files:
        if not f.endswith(".py"):
            continue
        text = open(os.path.join(d, f), errors="replace").read()
        if "async_compile.triton('triton_tem_" not in text:
            continue
        # One block per kernel: comments, then "name = async_compile.triton('name', ...".
        blocks = text.split("# kernel path: ")
        for b in blocks[1:]:
            m = re.search(r"^(triton_tem_\w+) = async_compile\.triton\(", b, re.M)
            if not m:
                continue
            name, path = m.group(1), b.split("\n", 1)[0].strip()
            types, call = {}, None
            for line in b[: m.start()].splitlines():
                t = TYPE.match(line)
                if t:
                    types.setdefault(t.group(1), (DT.get(t.group(2), t.group(2)), t.group(3), t.group(4)))
                c = CALL.match(line)
                if c and call is None:
                    call = c
            if not call:
                continue
            args = [a.strip().lstrip("%") for a in call.group(2).split(",")][:3]
            if call.group(1) in ("addmm", "baddbmm"):
                args = args[1:3]
            ab = []
            for a in args[:2]:
                if a not in types:
                    break
                dt, sz, st = types[a]
                ab.append({"dtype": dt, "sizes": "x".join(s.strip() for s in sz.split(",")),
                           "strides": "x".join(s.strip() for s in st.split(","))})
            if len(ab) != 2:
                continue
            out[os.path.relpath(path, "/tmp/kiln-model/inductor")] = {"kernel": name, "op": call.group(1), "A": ab[0], "B": ab[1]}
json.dump(out, sys.stdout, indent=1, sort_keys=True)
