#pragma once
// `kiln-cli ls` and the GUI browser's readable names: one row per graph entry (fxgraph, AOT),
// with what a performance engineer recognises a graph by: its inputs (shapes and dtypes as stored,
// symbolic sizes named), its guards, its compile time, the AOT entry's forward and backward graphs
// linked both ways. The fields marked "from the trace" (the function and source line that compiled it,
// what each guard symbol is: t0 = s77 = L['x'].size()[0]) are filled by trace/graph_names, which reads
// the TORCH_TRACE run: this module reads the cache only. Value types only.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/debug_lines.hpp"
#include "inductor/opened_root.hpp"
#include "inductor/scanner.hpp"
#include "util/result.hpp"

namespace kiln::inductor {

class GraphEntry;

struct GraphInput {
    std::string text;  // "float32[s77, s27] cuda:0", "s77" (a SymInt), "8" (an int)
};

struct GuardSymbol {
    std::string name;    // "t0"
    std::string symbol;  // "s77"
    std::string source;  // "L['x'].size()[0]" (from the trace; empty without one)
};

struct GraphRow {
    std::string kind;  // "fxgraph" | "aotautograd"
    std::string key;   // the key dir's name
    std::string file;  // the entry file's name
    std::string path;  // relative to the root
    std::uint64_t size = 0;
    std::optional<std::int64_t> mtime_ns;
    std::optional<std::int64_t> compile_ns;  // fx: _time_taken_ns; AOT: forward + backward
    std::vector<GraphInput> inputs;          // fx: its own; AOT: its forward graph's
    std::optional<std::string> guards;
    std::vector<GuardSymbol> symbols;
    std::optional<std::string> output_module;              // fx: cache_key ("c...")
    std::optional<std::string> forward_key, backward_key;  // AOT: the inner FX keys
    std::vector<std::string> used_by;                      // fx: AOT keys whose forward/backward this is
    std::string role;                                      // fx: "forward", "backward" or "" (inference/plain)
    std::string function, source_file, code;  // from the trace (user frame when the compiled one is torch's)
    std::optional<std::int64_t> line;
    std::string error;  // the entry could not be decoded (the row keeps what the file system says)

    // "pw (gen_holdout.py:67) float32[s77], float32[s77]": what the browser shows instead of the hash.
    std::string label() const;
};

struct GraphList {
    std::vector<GraphRow> rows;        // fxgraph rows then aotautograd rows, each sorted by path
    std::optional<std::string> trace;  // the TORCH_TRACE dir used (set by trace::name_graphs)
};

// The rows of an opened root (read through its descriptor), without trace names (trace::list_named_graphs
// adds them).
Result<GraphList> list_graphs(const OpenedRoot& root);
// The same rows from a scan already made (the GUI's browser scan): its fxgraph and aotautograd files,
// read on the CPUs this process may use. Errc::cancelled when `cancel` is raised.
Result<GraphList> list_graphs(const ScanResult& scan, const std::atomic<bool>* cancel = nullptr);
// The same rows handed over a batch at a time and dropped after `take` (the GUI reads a million-file
// cache's entries without holding every row): each row as list_graphs(scan) has it (AOT links
// included: every AOT entry is read before the first FX row goes out), the aotautograd rows first,
// then the fxgraph rows, each kind in path order, in batches of at most `batch` rows.
// Errc::cancelled when `cancel` is raised.
// `visit`, when given, sees each entry that decoded as it is read, beside its row (before the AOT links
// and `take`; the rows of a batch are read in parallel, so it runs on several threads at once): `index`
// is the row's place in the batch `take` gets next. What needs the decoded entry as well as its row
// (timings::mark_used_by) reads each file once.
using EntryVisit = std::function<void(std::size_t index, const GraphRow& row, const GraphEntry& entry)>;
Status for_each_graph_batch(const ScanResult& scan, std::size_t batch,
                            const std::function<void(std::vector<GraphRow>& rows)>& take,
                            const std::atomic<bool>* cancel = nullptr, const EntryVisit& visit = {});
// The same from an opened root without a scan: list_graphs(root)'s rows, batched as above (only the
// entry files' relative paths are held meanwhile).
Status for_each_graph_batch(const OpenedRoot& root, std::size_t batch,
                            const std::function<void(std::vector<GraphRow>& rows)>& take,
                            const std::atomic<bool>* cancel = nullptr, const EntryVisit& visit = {});

// Graph entry files by their paths relative to the root, as the reads above take them: the FX ones
// (the first `fx_count`) then the AOT ones, each kind by path.
struct GraphEntryFiles {
    std::vector<std::string> rels;
    std::size_t fx_count = 0;
};
// Those among a scan's artifacts, or among the part of a scan ScanOptions::on_graph_dirs hands over
// (fxgraph/ and aotautograd/ walked: the same files the whole scan's read takes).
GraphEntryFiles graph_entry_files(std::span<const Artifact> artifacts);
// The batches for_each_graph_batch(scan) makes, from files taken before the scan ended (the GUI reads
// its entries beside the rest of the walk). `threads`: readers at once (0: the CPUs this process may use).
Status for_each_graph_batch(const OpenedRoot& root, const GraphEntryFiles& files, std::size_t batch,
                            const std::function<void(std::vector<GraphRow>& rows)>& take,
                            const std::atomic<bool>* cancel = nullptr, const EntryVisit& visit = {},
                            std::size_t threads = 0);

// The rows of one key dir (fxgraph/<xx>/<key> or aotautograd/<key>) or one entry file, in torch's
// lookup order, without trace names: `guards KEYDIR` without sizes lists them.
Result<std::vector<GraphRow>> list_key_dir(const std::filesystem::path& key_dir_or_entry);
// The same for the key dir `rel_key_dir` beneath an opened root, listed and read through its descriptor
// (a key prefix's key dir: issue 44); each row's `path` is path_beneath(root, its file).
Result<std::vector<GraphRow>> list_key_dir(const OpenedRoot& root, std::string_view rel_key_dir);
// "t0" -> the symbol of the N-th backed SymInt graph input, from a key's debug lines
// (`example_inputs[i]: ('s77',)`); the order of the result is t0, t1, ...
std::vector<std::string> guard_symbols(const std::vector<std::string>& components);
// The same from components already parsed (those not named example_inputs[...] are passed over).
std::vector<std::string> symbols_of_inputs(const std::vector<KeyComponent>& components);
// The guard symbols an expression uses ("L['t0'] <= 8" -> t0), in the order of `row.symbols`.
std::vector<GuardSymbol> symbols_used(const GraphRow& row);

// "TensorMetadata(dtype=torch.float32, shape=torch.Size([s77, 8]), ..., device=device(type='cuda', index=0) ...)"
// -> "float32[s77, 8] cuda:0"; "('s77',)" -> "s77"; anything else as is.
std::string describe_input(const std::string& value);

nlohmann::ordered_json to_json(const GraphList& list);

}  // namespace kiln::inductor
