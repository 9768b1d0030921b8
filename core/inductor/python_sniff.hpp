#pragma once
// Telling output code from kernel modules by their first 4 KB, for many .py files at once: the
// scanner collects them during its walk and reads their heads afterwards on a few threads, one
// directory at a time (the directory is opened once, beneath the root, never through a symlink).
// On a cold page cache or a network file system these reads dominate a scan; in parallel they
// overlap instead of queueing.
#include <atomic>
#include <string_view>
#include <vector>

namespace kiln::inductor {

struct SniffOutcome {
    bool output_code = false;
    int err = 0;  // errno when the file could not be read (then output_code is false)
};

// `rels`: paths relative to `root_fd` ('/'-separated, no "..": the scanner's own). Files of one
// directory should be adjacent (walk order). `threads` 0: one per core, at most 8.
std::vector<SniffOutcome> sniff_python_heads(int root_fd, const std::vector<std::string_view>& rels, unsigned threads,
                                             const std::atomic<bool>* cancel);

}  // namespace kiln::inductor
