"""Python's fastest way to read the same graph entries: the C unpickler (_pickle.Unpickler) with a
find_class that returns inert stub classes instead of importing torch. Same protocol as
bench_decode: REPEATS rounds, all of a round's objects alive together; one JSON line out."""
import io, json, pickle, resource, sys, time

class Stub:
    """Accepts whatever REDUCE/NEWOBJ/BUILD/APPENDS/SETITEMS a pickle applies to an object."""
    def __init__(self, *args, **kwargs): self._args = args
    def __setstate__(self, state): self._state = state
    def append(self, x): pass
    def extend(self, xs): pass
    def add(self, x): pass
    def __setitem__(self, k, v): pass

_stubs = {}
class StubUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        key = (module, name)
        cls = _stubs.get(key)
        if cls is None:
            cls = _stubs[key] = type(name, (Stub,), {"__module__": module})
        return cls

def main():
    repeats = max(1, int(sys.argv[1]))
    files = sys.argv[2:]
    rounds, cpu = [], []
    total = 0
    for r in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        objs = []
        for path in files:
            with open(path, "rb") as f:
                data = f.read()
            objs.append(StubUnpickler(io.BytesIO(data)).load())
            if r == 0:
                total += len(data)
            del data
        cpu.append(time.process_time() - c0)
        rounds.append(time.perf_counter() - t0)
        del objs
    first_cpu = cpu[0]
    rounds.sort()
    cpu.sort()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"impl": "python", "files": len(files), "bytes": total,
                      "median_s": rounds[len(rounds) // 2], "min_s": rounds[0],
                      "median_cpu_s": cpu[len(cpu) // 2], "first_cpu_s": first_cpu,
                      "peak_rss_bytes": rss}))

if __name__ == "__main__":
    main()
