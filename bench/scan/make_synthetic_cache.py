#!/usr/bin/env python3
"""Builds a synthetic Inductor cache shaped like the real H100 fixture, for bench/scan.

The fixture's tree is replicated N times with fresh, well-formed keys (key[1:3] names the shard
dir, Triton hashes stay 52 upper-case base32 chars), so the folder structure and the category mix
are the fixture's. Sizes are the fixture's sizes: .py modules are copied byte for byte (the scanner
reads their first 4 KB); binaries (.so/.o/.cubin) and Triton group files (__grp__*.json) get their
first 4 KB real, the ELF header and the group's JSON that `kiln-cli check` reads, and a sparse rest;
every other file is sparse (st_size real, no disk blocks), which keeps a 100,000-file tree at a few
hundred MB on disk. Only the file system's view is copied; nothing is run.

The first copy keeps the fixture's keys and the others get fresh ones: the graph entries (copied as
they are) name the first copy's kernels, modules and forward graphs, so the cache is as healthy as the
fixture (`check` finds nothing), like a real one; the others' entries are what a cache holding many
builds of one model looks like to the scanner.

With --real-entries (bench/portable), the files `kiln-cli portable` reads are real bytes too: graph
entries, timing caches, .best_config files and Triton kernel metadata (`<kernel>.json`). Each is copied
once into OUT_DIR/../<name>.pool/ and hard-linked from every replica (the fixture is never linked to).

usage: make_synthetic_cache.py FIXTURE_ROOT OUT_DIR [MIN_FILES] [--real-entries]
"""
import base64
import hashlib
import math
import os
import re
import sys

CODE_KEY = re.compile(r"c[a-z2-7]{51}")
TRITON_HASH = re.compile(r"[A-Z2-7]{52}")
HEX64 = re.compile(r"[0-9a-f]{64}")


def b32(data: bytes) -> str:
    return base64.b32encode(hashlib.sha256(data).digest()).decode()


def new_key(old: str, replica: int) -> str:
    seed = f"{old}/{replica}".encode()
    if HEX64.fullmatch(old):
        return hashlib.sha256(seed).hexdigest()
    if TRITON_HASH.fullmatch(old):
        return b32(seed)[:52]
    # fxgraph "f…", aotautograd "a…", code "c…" keys and entry names: same first letter, base32 rest.
    return old[0] + b32(seed).lower()[: len(old) - 1]


def remap(rel: str, replica: int, keys: dict, module_of_dir: dict) -> str:
    if replica == 0:
        return rel
    parts = rel.split("/")

    def k(s):
        if (s, replica) not in keys:
            keys[(s, replica)] = new_key(s, replica)
        return keys[(s, replica)]

    if parts[0] == "fxgraph":            # fxgraph/<key[1:3]>/<key>/<entry>
        key = k(parts[2])
        return "/".join(["fxgraph", key[1:3], key, k(parts[3])])
    if parts[0] == "aotautograd":        # aotautograd/<key>/<entry>
        return "/".join(["aotautograd", k(parts[1]), k(parts[2])])
    if parts[0] == "triton":             # triton/<dev>/<HASH>/<file>
        return "/".join(["triton", parts[1], k(parts[2]), parts[3]])
    if parts[0] == "cache":
        return "cache/" + k(parts[1])
    if parts[0] == "locks":
        key = k(parts[1][:-5])
        return f"locks/{key}.lock"
    name = parts[1]
    if name.endswith(".best_config"):     # follows its kernel module to the module's new shard dir
        module = module_of_dir.get(parts[0])
        shard = k(module)[1:3] if module else parts[0]
        return shard + "/" + k(name[:64]) + ".best_config"
    key, rest = name[:52], name[52:]
    nk = k(key)
    return f"{nk[1:3]}/{nk}{rest}"


def read_by_portable(rel: str) -> bool:
    parts = rel.split("/")
    if parts[0] in ("fxgraph", "aotautograd", "cache"):
        return True
    if rel.endswith(".best_config"):
        return True
    return parts[0] == "triton" and rel.endswith(".json") and not parts[-1].startswith("__grp__")


def head_is_read(rel: str) -> bool:
    """Files whose first bytes `check` reads: ELF headers, Triton group files."""
    name = rel.rsplit("/", 1)[-1]
    return name.endswith((".so", ".o", ".cubin")) or (rel.startswith("triton/") and name.startswith("__grp__"))


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    real_entries = "--real-entries" in sys.argv
    src, out = args[0], args[1]
    min_files = int(args[2]) if len(args) > 2 else 100_000
    pool = os.path.normpath(out) + ".pool"
    files = []
    for dirpath, _, names in os.walk(src):
        for n in names:
            p = os.path.join(dirpath, n)
            files.append((os.path.relpath(p, src), os.path.getsize(p)))
    files.sort()
    module_of_dir = {rel.split("/")[0]: rel.split("/")[1][:52] for rel, _ in files
                     if rel.count("/") == 1 and rel.endswith(".py")}
    replicas = math.ceil(min_files / len(files))
    keys = {}
    made_dirs = set()
    count = 0
    for r in range(replicas):
        for rel, size in files:
            dst = os.path.join(out, remap(rel, r, keys, module_of_dir))
            d = os.path.dirname(dst)
            if d not in made_dirs:
                os.makedirs(d, exist_ok=True)
                made_dirs.add(d)
            if real_entries and read_by_portable(rel):
                pooled = os.path.join(pool, rel)
                if not os.path.exists(pooled):
                    os.makedirs(os.path.dirname(pooled), exist_ok=True)
                    with open(os.path.join(src, rel), "rb") as f, open(pooled, "wb") as g:
                        g.write(f.read())
                os.link(pooled, dst)
            elif rel.endswith(".py"):
                with open(os.path.join(src, rel), "rb") as f, open(dst, "wb") as g:
                    g.write(f.read())
            elif head_is_read(rel):
                with open(os.path.join(src, rel), "rb") as f, open(dst, "wb") as g:
                    g.write(f.read(4096))
                    g.truncate(size)
            else:
                with open(dst, "wb") as g:
                    g.truncate(size)
            count += 1
    print(f"{count} files in {len(made_dirs)} directories ({replicas} copies of {len(files)} fixture files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
