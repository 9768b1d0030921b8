#include "trace/graph_names.hpp"

#include <map>
#include <string>

namespace kiln::trace {

namespace fs = std::filesystem;

void name_from_run(inductor::GraphList& list, const TraceRun& run) { name_from_run(list.rows, run); }

void name_from_run(std::vector<inductor::GraphRow>& rows, const TraceRun& run) {
    std::map<std::string, const CacheEvent*> by_key;  // the last event per key
    for (const auto& e : run.events)
        if (!e.key.empty() && e.compile) by_key[e.key] = &e;
    for (auto& r : rows) {
        auto it = by_key.find(r.key);
        if (it == by_key.end()) continue;
        const TraceCompile& c = run.compiles[*it->second->compile];
        bool user = c.user_file.empty();
        r.function = user ? c.function : c.user_function;
        r.source_file = user ? c.file : c.user_file;
        r.line = user ? c.first_line : c.user_line;
        r.code = user ? std::string() : c.user_code;
        for (auto& s : r.symbols)
            if (const TraceSymbol* t = c.find_symbol(s.symbol)) s.source = t->source;
    }
}

std::optional<fs::path> trace_beside(const fs::path& root) {
    std::error_code ec;
    fs::path parent = fs::absolute(root, ec).lexically_normal();
    if (parent.filename().empty()) parent = parent.parent_path();
    parent = parent.parent_path();
    for (const fs::path& t : {parent / "trace", parent / "h100" / "trace"})
        if (fs::is_directory(t, ec)) return t;
    return std::nullopt;
}

Status name_graphs(inductor::GraphList& list, const fs::path& root, const std::optional<fs::path>& trace) {
    std::optional<fs::path> t = trace ? trace : trace_beside(root);
    if (!t) return ok_status();
    KILN_TRY(TraceRun run, read_trace_run(*t));
    name_from_run(list, run);
    list.trace = t->string();
    return ok_status();
}

Result<inductor::GraphList> list_named_graphs(const inductor::OpenedRoot& root, const std::optional<fs::path>& trace) {
    KILN_TRY(inductor::GraphList list, inductor::list_graphs(root));
    KILN_CHECK(name_graphs(list, root.path, trace));
    return list;
}

Result<inductor::GraphList> list_named_graphs(const inductor::ScanResult& scan, const std::optional<fs::path>& trace,
                                              const std::atomic<bool>* cancel) {
    KILN_TRY(inductor::GraphList list, inductor::list_graphs(scan, cancel));
    KILN_CHECK(name_graphs(list, scan.root, trace));
    return list;
}

namespace {

// The trace read first (an unreadable explicit trace fails before any row goes out), then each batch
// named before `take`.
// `read(take)`: one of inductor::for_each_graph_batch.
template <class Read>
Status named_batches(const fs::path& root, const std::optional<fs::path>& trace,
                     const std::function<void(std::vector<inductor::GraphRow>& rows)>& take, const Read& read) {
    std::optional<TraceRun> run;
    if (std::optional<fs::path> t = trace ? trace : trace_beside(root)) {
        KILN_TRY(TraceRun read, read_trace_run(*t));
        run = std::move(read);
    }
    return read([&](std::vector<inductor::GraphRow>& rows) {
        if (run) name_from_run(rows, *run);
        take(rows);
    });
}

}  // namespace

Status for_each_named_graph_batch(const inductor::ScanResult& scan, const std::optional<fs::path>& trace,
                                  std::size_t batch,
                                  const std::function<void(std::vector<inductor::GraphRow>& rows)>& take,
                                  const std::atomic<bool>* cancel, const inductor::EntryVisit& visit) {
    return named_batches(scan.root, trace, take, [&](const auto& named) {
        return inductor::for_each_graph_batch(scan, batch, named, cancel, visit);
    });
}

Status for_each_named_graph_batch(const inductor::OpenedRoot& root, const std::optional<fs::path>& trace,
                                  std::size_t batch,
                                  const std::function<void(std::vector<inductor::GraphRow>& rows)>& take,
                                  const std::atomic<bool>* cancel, const inductor::EntryVisit& visit) {
    return named_batches(root.path, trace, take, [&](const auto& named) {
        return inductor::for_each_graph_batch(root, batch, named, cancel, visit);
    });
}

Status for_each_named_graph_batch(const inductor::OpenedRoot& root, const inductor::GraphEntryFiles& files,
                                  const std::optional<fs::path>& trace, std::size_t batch,
                                  const std::function<void(std::vector<inductor::GraphRow>& rows)>& take,
                                  const std::atomic<bool>* cancel, const inductor::EntryVisit& visit,
                                  std::size_t threads) {
    return named_batches(root.path, trace, take, [&](const auto& named) {
        return inductor::for_each_graph_batch(root, files, batch, named, cancel, visit, threads);
    });
}

}  // namespace kiln::trace
