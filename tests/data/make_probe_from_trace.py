#!/usr/bin/env python3
"""Writes probe-h100-from-trace.json: the output `kiln-cli env --python` would get from its torch probe
(core/portability/python_source.cpp) on the fixture's H100, assembled from real data because this
machine has no torch or GPU:

- debug_lines: the key components of the first cache event of the H100 `warm` process
  (h100/trace/warm in inductor-h100-then-h200-torch2.11.tar.xz), verbatim: torch's own
  FxGraphCachePickler.debug_lines() output, restricted to the attributes the probe builds
  (cache_key_tag, deterministic/matmul settings, torch_version, system_info, inductor_config).
  `default_cuda_device_index` is absent: no fixture graph lacks tensor inputs, so no trace has that line.
- torch_key and the device properties: /work/ref/sysinfo.txt, printed by torch 2.11 on that H100
  (torch_key 36e6df12…; the .best_config names of the fixture derive from it).
- versions, environment and backend hash: the traces' compilation_metrics, fx_graph_runnable and the
  output code of a miss (h100/trace/cold).

usage: make_probe_from_trace.py H100H200_FIXTURE_DIR OUT.json
"""
import glob
import json
import re
import sys

PROBE_ATTRS = ("cache_key_tag", "deterministic_algorithms_settings", "cuda_matmul_settings", "torch_version",
               "system_info[", "inductor_config[")


def records(path):
    rec = None
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        line = line.rstrip("\n")
        if line.startswith("\t"):
            if rec is not None:
                rec[1].append(line[1:])
            continue
        m = re.match(r"^[VIWEC]\d{4} \S+ \d+ \S+\] (\{.*\})$", line)
        if m:
            if rec is not None:
                yield rec[0], "\n".join(rec[1])
            rec = (json.loads(m.group(1)), [])
    if rec is not None:
        yield rec[0], "\n".join(rec[1])


def main():
    fixture, out = sys.argv[1], sys.argv[2]
    log = sorted(glob.glob(f"{fixture}/h100/trace/warm/*.log"))[0]
    lines, metrics, env = None, None, {}
    for head, payload in records(log):
        name = head.get("artifact", {}).get("name", "")
        if lines is None and name in ("fx_graph_cache_hit", "fx_graph_cache_miss"):
            comps = json.loads(payload)["components"]
            lines = [c for c in comps if re.match(r"^\[[a-z2-7]{51}\] (" + "|".join(re.escape(a) for a in PROBE_ATTRS) + ")", c)]
        if metrics is None and "compilation_metrics" in head:
            metrics = json.loads(payload) if payload else head["compilation_metrics"]
    for head, payload in records(sorted(glob.glob(f"{fixture}/h100/trace/cold/*.log"))[0]):
        if head.get("artifact", {}).get("name") == "fx_graph_runnable":
            for m in re.finditer(r"^os\.environ\['([^']+)'\] = '([^']*)'$", payload, re.M):
                env[m.group(1)] = m.group(2)
            break
    backend_hash, last_fx = None, None
    for head, payload in records(sorted(glob.glob(f"{fixture}/h100/trace/cold/*.log"))[0]):
        name = head.get("artifact", {}).get("name", "")
        if name.startswith("fx_graph_cache_"):
            last_fx = name
        if backend_hash is None and last_fx == "fx_graph_cache_miss" and "inductor_output_code" in head:
            m = re.search(r"'backend_hash': '([0-9A-F]{64})'", payload)
            backend_hash = m.group(1) if m else None
    env["CXX"] = "/opt/gcc/bin/g++"  # what inductor_config[cpp.cxx] in the keys says $CXX was
    probe = {
        "kiln_probe": 1,
        "python": metrics["python_version"].split()[0],
        "executable": "/opt/torch/.venv/bin/python",
        "pickle_protocol": 4,
        "debug_lines": lines,
        "torch": metrics["pytorch_version"],
        "torch_cuda": metrics["cuda_version"],
        "torch_hip": None,
        "torch_key": "36e6df1237a766bca7ad4a8572c8069861e3413edeeca45f127ad55b11f32108",
        "triton": metrics["triton_version"],
        "backend_hash": backend_hash,
        "current_device": 0,
        "devices": [{"name": "NVIDIA H100 80GB HBM3", "major": 9, "minor": 0, "multi_processor_count": 132,
                     "warp_size": 32, "gcnArchName": "NVIDIA H100 80GB HBM3"}],
        "environment": env,
        "_note": "assembled by tests/data/make_probe_from_trace.py from the fixture's H100 trace and /work/ref/sysinfo.txt",
    }
    with open(out, "w") as f:
        json.dump(probe, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
