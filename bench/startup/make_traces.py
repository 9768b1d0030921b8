#!/usr/bin/env python3
"""Synthetic TORCH_TRACE logs for bench/startup, built from a real fixture log's own records.

make_traces.py FIXTURE_LOG OUT_DIR processes N   -> N logs (one per process: OUT_DIR/rank_i/...log), each the
                                                    fixture's records with its own pid and times shifted
make_traces.py FIXTURE_LOG OUT_LOG events N      -> one log holding at least N chromium_event records: the
                                                    fixture's compiles repeated with times shifted

Only the records `kiln-cli startup` and `kiln-cli timeline` read are kept (chromium_event, compilation_metrics,
dynamo_start, str, the cache artifacts); the large graph and code payloads are dropped, so a run measures the
analysis, not the disk.
"""
import json, os, re, sys

KEEP = ('{"chromium_event"', '{"compilation_metrics"', '{"dynamo_start"', '{"str"', '{"artifact"')
HEADER = re.compile(r"^([VIWEC])(\S+ \S+) (\d+) (\S+\] )(\{.*)$")


def records(path):
    rec = None
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("\t"):
            if rec is not None:
                rec.append(line)
            continue
        if rec is not None:
            yield rec
        rec = [line] if HEADER.match(line.rstrip("\n")) else None
    if rec is not None:
        yield rec


def kept(path):
    out = []
    for rec in records(path):
        body = HEADER.match(rec[0].rstrip("\n")).group(5)
        if body.startswith(KEEP) and (not body.startswith('{"artifact"') or "_cache_" in body):
            out.append(rec)
    return out


def shifted(rec, pid, shift_us):
    m = HEADER.match(rec[0].rstrip("\n"))
    head = f"{m.group(1)}{m.group(2)} {pid} {m.group(4)}{m.group(5)}\n"
    lines = [head]
    for line in rec[1:]:
        if shift_us and line.startswith('\t"ts": '):
            ts = float(line[len('\t"ts": '):].rstrip(",\n"))
            lines.append(f'\t"ts": {ts + shift_us:.1f},\n')
        else:
            lines.append(line)
    return lines


def main():
    src, out, mode, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    recs = kept(src)
    if mode == "processes":
        for i in range(n):
            d = os.path.join(out, f"rank_{i}")
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, f"dedicated_log_torch_trace_rank_{i}.log"), "w") as f:
                for r in recs:
                    f.writelines(shifted(r, 10000 + i, 0))
    elif mode == "events":
        per_copy = sum(1 for r in recs if r[0].find('{"chromium_event"') > 0)
        span_us = 0.0
        for r in recs:
            for line in r[1:]:
                if line.startswith('\t"ts": '):
                    span_us = max(span_us, float(line[len('\t"ts": '):].rstrip(",\n")))
        copies = (n + per_copy - 1) // per_copy
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        with open(out, "w") as f:
            for c in range(copies):
                for r in recs:
                    f.writelines(shifted(r, 20000, c * 1e8))
        print(f"{copies * per_copy} chromium events in {copies} copies", file=sys.stderr)
    else:
        sys.exit("mode: processes or events")


if __name__ == "__main__":
    main()
