#!/usr/bin/env python3
"""Seeds for fuzz_blob_reader: small Mega-Cache blobs made from the fixture blobs (every artifact kept,
contents cut to 2 KB so they fit libFuzzer's -max_len) and crafted ones (duplicate groups, hostile
keys, unknown types, the empty blob). An independent reader/writer of the format, from torch's
torch/utils/_appending_byte_serializer.py: nothing here imports torch or unpickles anything.

usage: make_blob_seeds.py OUT_DIR BLOB...
"""
import base64
import os
import struct
import sys
import zlib


def parse(blob):
    assert zlib.crc32(blob[4:]) == struct.unpack(">I", blob[:4])[0], "checksum"
    i = 4
    def u64():
        nonlocal i
        v = struct.unpack(">Q", blob[i:i + 8])[0]
        i += 8
        return v
    def raw():
        nonlocal i
        n = u64()
        v = blob[i:i + n]
        i += n
        return v
    assert u64() == 1
    groups = []
    while i < len(blob):
        t = base64.b64decode(raw()).decode()
        groups.append((t, [(base64.b64decode(raw()).decode(), raw()) for _ in range(u64())]))
    return groups


def build(groups, version=1):
    def u64(n): return struct.pack(">Q", n)
    def wbytes(b): return u64(len(b)) + b
    def wstr(s): return wbytes(base64.b64encode(s.encode()))
    body = u64(version) + b"".join(wstr(t) + u64(len(a)) + b"".join(wstr(k) + wbytes(c) for k, c in a) for t, a in groups)
    return struct.pack(">I", zlib.crc32(body)) + body


def main():
    out, blobs = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    seeds = {}
    for path in blobs:
        groups = parse(open(path, "rb").read())
        name = os.path.basename(path).replace(".bin", "")
        seeds[name + "-cut"] = build([(t, [(k, c[:2048]) for k, c in a]) for t, a in groups])
    fx = "faowxkdfnc3l6ngxumumzu5rn4ei65emq4ak4dmbtrs5capo455u"
    tune = "bg/" + "ac87608f" * 8 + ".best_config"
    seeds["empty"] = build([])
    seeds["dup-groups"] = build([("autotune", [("zz/" + "a" * 64 + ".best_config", b"{}")]), ("pgo", [("x", b"p")]),
                                 ("autotune", [("zz/" + "b" * 64 + ".best_config", b"{}")])])
    seeds["hostile-keys"] = build([("autotune", [("../esc.best_config", b"{}")]), ("aot_autograd", [("../../x", b"c")]),
                                   ("precompile", [("/" + "0" * 63, b"c")]), ("pgo", [("mast:a/b:0:", b"p")])])
    seeds["unknown-type"] = build([("inductor_triton", [("k", b"v")]), ("inductor", [(fx, b"\x80\x04N.")])])
    seeds["repeated-key"] = build([("autotune", [(tune, b'{"a": 1}'), (tune, b'{"a": 2}')])])
    seeds["version-2"] = build([("inductor", [])], version=2)
    for name, data in seeds.items():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)
    print(f"{len(seeds)} blob seeds in {out}")


if __name__ == "__main__":
    main()
