#pragma once
// "Used by graph ...": which autotune choices the compiled graphs of a cache root actually run. For
// every fxgraph entry, the template kernels its output code launches are joined to their autotune
// rows (graph_kernels: same config at the same problem size), and each such choice of `set` gets a
// GraphUse. The Autotune view and `kiln-cli timings` show it on the row; `show --kernels` names the
// same row from the entry's side.
#include <filesystem>
#include <vector>

#include "inductor/opened_root.hpp"
#include "timings/timing_model.hpp"
#include "util/result.hpp"

namespace kiln::timings {

// Marks `set`'s choices launched by the graph entries beneath the opened `root` (an Inductor cache
// root; its entries read through its descriptor). Entries that do not decode or have no output code
// are skipped (they launch nothing Kiln can name); the count of marks is returned. At most
// `max_entries` entries are read (a bound on a huge root).
Result<int> mark_used_by(const inductor::OpenedRoot& root, TimingSet& set, std::size_t max_entries = 20000);

// The cache roots of `set`'s timing caches (`<root>/cache/<system hash>`) that hold graph entries:
// what a front end opens (frontend::open_cache) and passes to mark_used_by.
std::vector<std::filesystem::path> roots_with_graphs(const TimingSet& set);
// mark_used_by over each of `roots` (those roots, opened): what `kiln-cli timings` and the Autotune
// view show.
Result<int> mark_used_by(TimingSet& set, const std::vector<inductor::OpenedRoot>& roots);

}  // namespace kiln::timings
