#pragma once
// Where Kiln's own files are, found relative to the running executable so that the build tree,
// the .deb (/usr/bin + /usr/libexec/kiln) and an unpacked .tar.gz anywhere all work unchanged.
#include <filesystem>
#include <vector>

#include "util/result.hpp"

namespace kiln {

// Directory of the running executable (/proc/self/exe), empty if it cannot be read.
std::filesystem::path executable_dir();

// The places find_worker_executable() looks, in order: $KILN_WORKER (an explicit choice wins),
// <exe dir>/kiln-worker (build tree), <exe dir>/../libexec/kiln/kiln-worker (installed).
std::vector<std::filesystem::path> worker_candidates();

// The first candidate that is an executable regular file; Errc::not_found listing every place tried.
Result<std::filesystem::path> find_worker_executable();

}  // namespace kiln
