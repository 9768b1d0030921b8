#pragma once
// `--write`: measured ops into torch's own timing cache, `<root>/cache/<system hash>`, the file
// torch's PersistentCache.lookup reads (codecache.py: local_cache[op][inputs][precision]
// [choice.hash_key()]; when every choice is there it benchmarks nothing). One file per system
// (device name, Triton key, CUDA version), holding {"system": <that dict, "hash" included>,
// "cache": ...} as json.dumps(indent=4) writes it. Each file is a read-merge-write under Kiln's
// lock (locks/autotune-<hash>.lock, the tuner's; torch takes none for this file) and replaced
// atomically: every other op keeps its bytes, and a version torch renamed in meanwhile is merged
// too (util/merged_write). A file torch could not read is refused, and then nothing is written
// anywhere; a lock folder, lock file, cache folder or file that is a symlink is refused too.
// Everything is reached through the opened root's descriptor (issue 44): a root renamed or swapped
// after the open is still the one written.
#include <string>
#include <vector>

#include "handback/measured_op.hpp"
#include "inductor/opened_root.hpp"

namespace kiln::handback {

struct WrittenFile {
    std::string path;
    std::string device;         // the system's device name
    std::string system_hash;    // the file name
    std::string versions_from;  // where its Triton key and CUDA version came from
    int added = 0;              // ops the file did not have
    int replaced = 0;           // ops whose times were overwritten
    bool created = false;       // the file did not exist
    int merged_again = 0;       // newer versions (another writer's, torch's) merged before the rename
};

struct WriteReport {
    std::vector<WrittenFile> files;
};

// Errc::not_found when `root` was not opened (no descriptor: no such directory).
Result<WriteReport> write_timing_cache(const inductor::OpenedRoot& root, const std::vector<MeasuredOp>& ops);

// Whether torch 2.11 could read `text` as a timing cache and take `op` into it: a JSON object
// whose "cache" is an object and whose nodes on the op's path are objects. The error says where.
Status check_torch_readable(const std::string& text, const std::string& path);

}  // namespace kiln::handback
