#pragma once
// A blob's runs beside its unpacked copy. The TORCH_TRACE directories kept beside a blob file
// (trace::find_trace_dirs of the blob's path: the runs that wrote it) are linked beside its
// temporary root as they lie beside the blob (<tmp>/trace, <tmp>/h200/trace), so that everything that
// finds a root's traces (`ls` names, the compile timeline, the Overview's frames) finds the blob's.
// Symbolic links only: removing the temporary root removes the links, never what they point at.
#include <filesystem>

namespace kiln::bundle {

class TempRoot;

// How many directories were linked; a link that cannot be made is left out (the names are a help).
int link_traces_beside(const std::filesystem::path& blob, const TempRoot& tmp);

}  // namespace kiln::bundle
