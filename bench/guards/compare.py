"""Runs bench_guards, then evaluates the same expressions over the same grid with Python the way
torch does (eval of the string per call), checks both agree on every count, and prints a table."""
import json
import os
import subprocess
import sys
import tempfile
import time


def python_eval(sample, compiled):
    """Seconds per evaluation and held-counts; `compiled` pre-compiles (not torch's way, for scale)."""
    total_evals, total_s, counts = 0, 0.0, []
    for e in sample["exprs"]:
        src, names, grid = e["expr"], e["symbols"], e["grid"]
        arity = len(names)
        code = compile(src, "<guards>", "eval") if compiled else src
        pts = [grid[i:i + arity] for i in range(0, len(grid), arity)]
        held = 0
        start = time.perf_counter()
        for p in pts:
            held += bool(eval(code, {}, {"L": dict(zip(names, p))}))
        total_s += time.perf_counter() - start
        total_evals += len(pts)
        counts.append(held)
    return total_s / total_evals, total_evals, counts


def main():
    exe, goldens = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        sample_path = os.path.join(tmp, "sample.json")
        args = [exe, "--points", "200000", "--reps", "7", "--sample", sample_path]
        for g in goldens:
            args += ["--golden", g]
        kiln = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
        with open(sample_path) as f:
            sample = json.load(f)
    # Python is far slower: evaluate a prefix of every expression's grid (the same points).
    py_points = 2000
    for e in sample["exprs"]:
        e["grid"] = e["grid"][: py_points * len(e["symbols"])]
    py_s, py_n, py_counts = python_eval(sample, compiled=False)
    pyc_s, _, _ = python_eval(sample, compiled=True)

    # Agreement: a small bench_guards run evaluates exactly that prefix (one seed per expression).
    with tempfile.TemporaryDirectory() as tmp:
        check_path = os.path.join(tmp, "check.json")
        args = [exe, "--points", str(py_points), "--reps", "1", "--sample", check_path]
        for g in goldens:
            args += ["--golden", g]
        subprocess.run(args, check=True, capture_output=True)
        with open(check_path) as f:
            small = json.load(f)
    kiln_counts = [e["held"] for e in small["exprs"]]
    agree = kiln_counts == py_counts

    kiln_ns = kiln["ns_per_eval"]
    rows = [
        ("Python eval(str) per call (torch's way, baseline)", py_s * 1e9, py_n),
        ("Python eval(compiled code) per call (for scale)", pyc_s * 1e9, py_n),
        ("Kiln Expr::evaluate (parsed once)", kiln_ns, int(kiln["evals_per_rep"]) * kiln["reps"]),
    ]
    print(f"{kiln['expressions']} distinct guard expressions from the fixtures; "
          f"grid of sizes incl. 0, 1, 2**31-1, 2**31+16; one thread")
    print(f"{'what':52} {'evals':>10} {'ns/eval':>10} {'evals/s':>14} {'speed-up':>9}")
    for name, ns, n in rows:
        print(f"{name:52} {n:>10} {ns:>10.1f} {1e9 / ns:>14,.0f} {py_s * 1e9 / ns:>8.0f}x")
    print(f"parse once: {kiln['parse_ns'] / 1000:.1f} us per expression; "
          f"results agree with Python on {py_points} points x {len(py_counts)} expressions: {'yes' if agree else 'NO'}")
    print(f"targets: >= 500x torch's way: {'met' if py_s * 1e9 / kiln_ns >= 500 else 'NOT met'}; "
          f">= 10M evals/s: {'met' if 1e9 / kiln_ns >= 1e7 else 'NOT met'}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
