#pragma once
// `ls`'s rows named from a TORCH_TRACE run: inductor::list_graphs reads the cache, this adds what only
// the trace knows (the compile that logged a cache event for the row's key: its function and source
// line, or the user's frame when the compiled one is torch's, and each guard symbol's source).
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "inductor/graph_list.hpp"
#include "trace/trace_run.hpp"
#include "util/result.hpp"

namespace kiln::trace {

// Names the rows whose key a compile of `run` logged a cache event for (the last event per key wins).
void name_from_run(inductor::GraphList& list, const TraceRun& run);
void name_from_run(std::vector<inductor::GraphRow>& rows, const TraceRun& run);

// The trace directory kept beside a root (`<root>/../trace`, or `<root>/../h100/trace`); nullopt if none.
std::optional<std::filesystem::path> trace_beside(const std::filesystem::path& root);

// Names `list`'s rows from `trace` (a TORCH_TRACE log or dir; nullopt: trace_beside(root), when there is
// one) and records the trace used in `list.trace`. An explicit trace that cannot be read is an error.
Status name_graphs(inductor::GraphList& list, const std::filesystem::path& root,
                   const std::optional<std::filesystem::path>& trace);

// inductor::list_graphs, then name_graphs: the rows `kiln-cli ls` and the GUI's browser show. The trace
// beside the root is looked for beside its path as opened; the entries are read through its descriptor.
Result<inductor::GraphList> list_named_graphs(const inductor::OpenedRoot& root,
                                              const std::optional<std::filesystem::path>& trace);
Result<inductor::GraphList> list_named_graphs(const inductor::ScanResult& scan,
                                              const std::optional<std::filesystem::path>& trace,
                                              const std::atomic<bool>* cancel = nullptr);
// The same rows a batch at a time (inductor::for_each_graph_batch, each batch named before `take`):
// the trace is read first, so an unreadable explicit trace fails before any row goes out.
Status for_each_named_graph_batch(const inductor::ScanResult& scan, const std::optional<std::filesystem::path>& trace,
                                  std::size_t batch,
                                  const std::function<void(std::vector<inductor::GraphRow>& rows)>& take,
                                  const std::atomic<bool>* cancel = nullptr, const inductor::EntryVisit& visit = {});
// The same from an opened root without a scan (inductor::for_each_graph_batch(root, ...)).
Status for_each_named_graph_batch(const inductor::OpenedRoot& root, const std::optional<std::filesystem::path>& trace,
                                  std::size_t batch,
                                  const std::function<void(std::vector<inductor::GraphRow>& rows)>& take,
                                  const std::atomic<bool>* cancel = nullptr, const inductor::EntryVisit& visit = {});
// The same from entry files taken before their scan ended (inductor::for_each_graph_batch(root, files, ...)).
Status for_each_named_graph_batch(const inductor::OpenedRoot& root, const inductor::GraphEntryFiles& files,
                                  const std::optional<std::filesystem::path>& trace, std::size_t batch,
                                  const std::function<void(std::vector<inductor::GraphRow>& rows)>& take,
                                  const std::atomic<bool>* cancel = nullptr, const inductor::EntryVisit& visit = {},
                                  std::size_t threads = 0);

}  // namespace kiln::trace
