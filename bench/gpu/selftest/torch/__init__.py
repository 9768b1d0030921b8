"""NOT torch. A stand-in for running bench/gpu/bundle_proof.sh's plumbing off the GPU machine
(bench/gpu/selftest.sh): `torch.compiler.load_cache_artifacts` re-implemented from torch 2.11's
sources (torch/utils/_appending_byte_serializer.py, torch/compiler/_cache.py and each artifact's
populate_cache), independently of Kiln, so the script's tree comparison has something to compare.
The real proof is the same script with the real torch."""
import base64
import hashlib
import os
import re
import struct
import types
import zlib

__version__ = "0.0-selftest (not torch)"


def _sha256_hash(data):  # torch._inductor.codecache.sha256_hash
    return base64.b32encode(hashlib.sha256(data).digest())[:51].decode("utf-8").lower()


def _write_atomic(path, data):  # codecache.write_atomic
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = os.path.join(os.path.dirname(path), f".{os.getpid()}.selftest.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def _parse(blob):
    if len(blob) < 4 or zlib.crc32(blob[4:]) != struct.unpack(">I", blob[:4])[0]:
        return None
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
    if u64() != 1:
        return None
    groups = []
    while i < len(blob):
        t = base64.b64decode(raw()).decode()
        groups.append((t, [(base64.b64decode(raw()).decode(), raw()) for _ in range(u64())]))
    return dict(groups)


def _populate(root, t, key, content):
    if t == "inductor":
        _write_atomic(os.path.join(root, "fxgraph", key[1:3], key, _sha256_hash(content)), content)
    elif t == "aot_autograd":
        _write_atomic(os.path.join(root, "aotautograd", key, _sha256_hash(content)), content)
    elif t == "autotune":
        _write_atomic(os.path.join(root, key), content)
    elif t == "pgo":
        path = os.path.join(root, "dynamo", re.sub(r'[<>:"/\\|?*]', "_", f"code_state_{key}.pkl"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path + ".lock", "a").close()
        with open(path + ".tmp", "wb") as f:
            f.write(content)
        os.replace(path + ".tmp", path)
    elif t == "precompile":
        _write_atomic(os.path.join(root, "dynamo", key, "entry"), content)
    else:
        raise ValueError(f"unregistered artifact type {t}")


def _load_cache_artifacts(blob):
    groups = _parse(blob)
    if groups is None or any(t not in ("inductor", "aot_autograd", "autotune", "pgo", "precompile") for t in groups):
        return None
    root = os.environ.get("TORCHINDUCTOR_CACHE_DIR") or "/tmp/torchinductor_selftest"
    for t, arts in groups.items():
        for key, content in arts:
            _populate(root, t, key, content)
    return "CacheInfo(" + repr({t: [k for k, _ in a] for t, a in groups.items()}) + ")"


compiler = types.SimpleNamespace(load_cache_artifacts=_load_cache_artifacts)
cuda = types.SimpleNamespace(is_available=lambda: False, get_device_name=lambda i=0: "none")
