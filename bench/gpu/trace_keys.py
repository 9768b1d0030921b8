#!/usr/bin/env python3
"""List the FX-graph and AOTAutograd cache keys in TORCH_TRACE logs, and compare two runs.

  trace_keys.py TRACE                      one line per cache event: scenario function, compile id,
                                           event, key, detailed status
  trace_keys.py TRACE --against FIXTURE    match compiles (function name, frame compile id, n-th
                                           time) and their events in order; for every key that
                                           differs, the components whose hashes differ
TRACE / FIXTURE: a TORCH_TRACE directory or a dedicated_log_torch_trace_*.log file.
Exit 0 when every event of TRACE has the fixture's key (or no --against), 1 otherwise, 2 bad input.
Standard library only (runs where torch is not installed). Never unpickles anything.
"""
import argparse
import glob
import json
import os
import re
import sys

HEADER = re.compile(r"^[VIWEC]\d{4} \d\d:\d\d:\d\d\.\d{6} \d+ \S+?:\d+\] (\{.*\})$")
COMPONENT = re.compile(r"\[([a-z0-9]+)\] ([^:]*): ?(.*)", re.S)
CACHE_EVENTS = ("fx_graph_cache_hit", "fx_graph_cache_miss", "fx_graph_cache_bypass",
                "aotautograd_cache_hit", "aotautograd_cache_miss", "aotautograd_cache_bypass")
META_KEYS = ("frame_id", "frame_compile_id", "attempt", "has_payload", "rank", "compiled_autograd_id",
             "stack")


def trace_files(path):
    if os.path.isfile(path):
        return [path]
    files = sorted(glob.glob(os.path.join(path, "*.log")))
    if not files:
        sys.exit(f"trace_keys.py: no *.log in {path} (expected a TORCH_TRACE directory)")
    return files


def records(path):
    """(event name, header JSON, payload text) per glog record; payload lines start with a TAB."""
    for file in trace_files(path):
        head, payload = None, []
        with open(file, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("\t"):
                    payload.append(line[1:].rstrip("\n"))
                    continue
                m = HEADER.match(line.rstrip("\n"))
                if not m:
                    continue
                if head is not None:
                    yield event_name(head), head, "\n".join(payload)
                head, payload = json.loads(m.group(1)), []
        if head is not None:
            yield event_name(head), head, "\n".join(payload)


def event_name(head):
    kinds = [k for k in head if k not in META_KEYS]
    kind = kinds[0] if kinds else "?"
    return head["artifact"]["name"] if kind == "artifact" else kind


def user_function(stack, strings):
    """The compiled code's name, or for a frame inside torch (nn.Module wrappers) the last user frame."""
    for frame in reversed(stack):
        filename = strings.get(frame.get("filename"), str(frame.get("filename")))
        if "/site-packages/torch/" not in filename:
            return frame["name"]
    return stack[-1]["name"] if stack else "?"


def parse_components(lines):
    comps = {}
    for line in lines or []:
        m = COMPONENT.match(line)
        if m:
            comps[m.group(2)] = (m.group(1), m.group(3))
    return comps


def cache_events(path):
    """[{function, compile_id, compile_n, event, key, status, guards, components}] in trace order."""
    strings, out, seen = {}, [], {}
    function, compile_id, compile_n = "?", "?", 0
    for name, head, payload in records(path):
        if name == "str":
            strings[head["str"][1]] = head["str"][0]
        elif name == "dynamo_start":
            function = user_function(head["dynamo_start"]["stack"], strings)
            compile_id = f"{head.get('frame_id')}/{head.get('frame_compile_id')}"
            ident = (function, head.get("frame_compile_id"))
            seen[ident] = seen.get(ident, -1) + 1
            compile_n = seen[ident]
        elif name in CACHE_EVENTS:
            p = json.loads(payload) if payload else {}
            out.append({"function": function, "compile_id": compile_id, "compile_n": compile_n,
                        "frame_compile_id": compile_id.split("/")[-1], "event": name,
                        "kind": "fx" if name.startswith("fx") else "aot", "key": p.get("key"),
                        "status": p.get("cache_status_detailed") or p.get("cache_state"),
                        "guards": p.get("cache_status_guard_expr"),
                        "components": parse_components(p.get("components"))})
    return out


def match_key(ev, index):
    return (ev["function"], ev["frame_compile_id"], ev["compile_n"], ev["kind"], index)


def indexed(events):
    counts, out = {}, {}
    for ev in events:
        base = (ev["function"], ev["frame_compile_id"], ev["compile_n"], ev["kind"])
        counts[base] = counts.get(base, -1) + 1
        out[match_key(ev, counts[base])] = ev
    return out


def differing_components(a, b):
    names = list(dict.fromkeys(list(a) + list(b)))
    return [(n, a.get(n, ("-", "<absent>")), b.get(n, ("-", "<absent>")))
            for n in names if a.get(n, ("-",))[0] != b.get(n, ("-",))[0]]


def short(text, width=160):
    text = text.replace("\n", "\\n")
    return text if len(text) <= width else text[:width] + "..."


def compare(run_events, fixture_events, out):
    fixture = indexed(fixture_events)
    same = differ = unmatched = 0
    for key, ev in indexed(run_events).items():
        ref = fixture.get(key)
        where = f"{ev['function']} {ev['compile_id']} {ev['kind']}#{key[-1]}"
        if ref is None:
            unmatched += 1
            out.write(f"NO-MATCH {where} {ev['event']} {ev['key']} (no such compile in the fixture)\n")
            continue
        if ev["key"] == ref["key"]:
            same += 1
            out.write(f"SAME     {where} {ev['event']:<24} {ev['key']} ({ev['status']}; fixture {ref['event']})\n")
            continue
        differ += 1
        out.write(f"DIFF     {where} {ev['event']:<24} {ev['key']} fixture {ref['key']}\n")
        for name, (h1, v1), (h2, v2) in differing_components(ev["components"], ref["components"]):
            out.write(f"    {name}\n      run     [{h1}] {short(v1)}\n      fixture [{h2}] {short(v2)}\n")
    out.write(f"{same} same, {differ} different, {unmatched} without a fixture counterpart\n")
    return differ == 0 and unmatched == 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--against", help="the fixture's TORCH_TRACE directory or log")
    ap.add_argument("--json", action="store_true", help="events as JSON (components left out)")
    args = ap.parse_args(argv)
    for path in [args.trace] + ([args.against] if args.against else []):
        if not os.path.exists(path):
            print(f"trace_keys.py: {path} does not exist", file=sys.stderr)
            return 2
    events = cache_events(args.trace)
    if args.json:
        json.dump([{k: v for k, v in e.items() if k != "components"} for e in events], sys.stdout, indent=1)
        print()
    elif not args.against:
        for e in events:
            print(f"{e['function']:<10} {e['compile_id']:<5} {e['event']:<24} {e['key']} {e['status']}"
                  + (f" [{e['guards']}]" if e["guards"] else ""))
    if args.against:
        return 0 if compare(events, cache_events(args.against), sys.stdout) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
