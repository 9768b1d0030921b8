#pragma once
// The compiled kernels of an Inductor root's Triton cache (`<root>/triton/<dev>/<key>/`), indexed
// by the kernel module they were compiled from: each key dir holds `<name>.cubin`, `.ptx` and the
// metadata `<name>.json` (num_warps, shared, scratch sizes, target arch), and its `.source` (or
// `.ttir`) starts with `#loc = loc("<path>/<hh>/c<hash>.py":...)`, naming the module.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inductor/opened_root.hpp"
#include "util/result.hpp"
#include "worker/triton_launch.hpp"

namespace kiln::retune {

// Everything is read beneath the opened root, through its descriptor (inductor/beneath_root): a root
// renamed after the open is still the one indexed, and the binaries' paths (`binary.cubin`, `.ptx`)
// are relative to it, for a worker given the same root (kiln-worker --root-fd).
struct IndexedBinary {
    worker::TritonBinary binary;
    std::string dir;         // the key dir, as reports name it (path_beneath)
    std::string ptx_target;  // the PTX's ".target" (e.g. "sm_90a"), "" without PTX
    std::string unreadable;  // why its metadata could not be read (then never picked)
};

struct TritonIndex {
    std::map<std::string, std::vector<IndexedBinary>> by_module;  // "c<hash>" -> its compiled kernels
    std::vector<std::string> problems;                            // key dirs that could not be read
};

// Walks `triton/*/*/` beneath the opened Inductor root. Unreadable dirs are listed in `problems`, not errors.
TritonIndex index_triton_cache(const inductor::OpenedRoot& inductor_root);

// Reads one key dir's metadata (the JSON that is not `__grp__*`) and names its module's key: the
// key dir `rel` ('/'-separated; "" the root itself) beneath `root`.
struct KeyDir {
    IndexedBinary binary;
    std::string module_key;  // "c<hash>" or "" when the source names no Inductor module
};
Result<KeyDir> read_key_dir(const inductor::OpenedRoot& root, std::string_view rel);

// The binary to run on `arch` (e.g. 90; none: any, the first): a cubin for that arch, else a
// PTX the driver can JIT (a target without the arch-specific 'a' and not above `arch`). Empty
// with `why` set when there is none.
std::optional<IndexedBinary> pick_binary(const std::vector<IndexedBinary>& found, std::optional<int> arch,
                                         std::string& why);

}  // namespace kiln::retune
