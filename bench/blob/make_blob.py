#!/usr/bin/env python3
"""A Mega-Cache blob of many small artifacts (issue 42 #16: 200,000 in 5.2 MB): PGO profiles under short
keys (a few bytes each, as a job's many small code states are), written with fuzz/make_blob_seeds.py's
independent encoder of torch's format. Loading it writes two files per artifact (the profile and the
empty lock file torch's FileLock leaves beside it) into dynamo/.

usage: make_blob.py OUT [ARTIFACTS]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fuzz"))
from make_blob_seeds import build  # noqa: E402


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
    artifacts = [(f"p{i:x}", b"%d" % (i % 100)) for i in range(n)]
    data = build([("pgo", artifacts)])
    tmp = out + ".part"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, out)
    print(f"{out}: {n} artifacts, {len(data) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
