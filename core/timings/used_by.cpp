#include "timings/used_by.hpp"

#include <algorithm>
#include <atomic>

#include "inductor/beneath_root.hpp"
#include "inductor/graph_entry.hpp"
#include "pickle/skim.hpp"
#include "timings/graph_kernels.hpp"
#include "trace/graph_names.hpp"

namespace fs = std::filesystem;

namespace kiln::timings {

Result<int> mark_used_by(const inductor::OpenedRoot& root, TimingSet& set, std::size_t max_entries) {
    if (!inductor::is_directory_beneath(root, "fxgraph")) return 0;  // a folder of logs: no graphs to join
    // Names as `ls` gives them (with the trace beside the root when there is one), a batch of rows at a
    // time: the GUI runs this beside a million-file cache's other jobs, where all 23k rows were 19 MB.
    int marks = 0;
    std::size_t read = 0;
    std::atomic<bool> enough{false};  // max_entries read: no further batch is read
    Status listed = trace::for_each_named_graph_batch(
        root, std::nullopt, 256,
        [&](std::vector<inductor::GraphRow>& rows) {
            for (const auto& row : rows) {
                if (row.kind != "fxgraph" || !row.error.empty()) continue;
                if (++read > max_entries) {
                    enough = true;
                    return;
                }
                // Skimmed: graph_kernels reads the entry's cache_key, source_code and debug lines, never
                // the bundled Triton binaries that are most of its bytes.
                auto file = inductor::open_beneath(root, row.path);
                if (!file.ok()) continue;
                auto buffer = pickle::skim_opened_file(*file, inductor::path_beneath(root, row.path));
                if (!buffer.ok()) continue;
                auto entry = inductor::decode_graph_entry(std::move(*buffer));
                if (!entry.ok()) continue;
                auto kernels = graph_kernels(root, *entry, &set);
                if (!kernels.ok()) continue;
                for (const auto& k : kernels->kernels) {
                    if (!k.autotune) continue;
                    Choice& c = set.ops[k.autotune->op_index].choices[k.autotune->choice_index];
                    GraphUse use{row.key, row.label(), k.ref.name};
                    bool dup = std::any_of(c.used_by.begin(), c.used_by.end(), [&](const GraphUse& u) {
                        return u.key == use.key && u.kernel == use.kernel;
                    });
                    if (dup) continue;
                    c.used_by.push_back(std::move(use));
                    ++marks;
                }
            }
        },
        &enough);
    if (!listed.ok() && !enough) return listed.error();
    return marks;
}

std::vector<fs::path> roots_with_graphs(const TimingSet& set) {
    std::vector<fs::path> roots;
    for (const auto& s : set.sources) {
        if (s.kind != SourceKind::timing_cache) continue;
        fs::path cache = fs::path(s.path).parent_path();
        if (cache.filename() != "cache") continue;
        fs::path root = cache.parent_path();
        std::error_code ec;
        if (!fs::is_directory(root / "fxgraph", ec)) continue;
        if (std::find(roots.begin(), roots.end(), root) == roots.end()) roots.push_back(root);
    }
    return roots;
}

Result<int> mark_used_by(TimingSet& set, const std::vector<inductor::OpenedRoot>& roots) {
    int marks = 0;
    for (const auto& root : roots) {
        KILN_TRY(int n, mark_used_by(root, set));
        marks += n;
    }
    return marks;
}

}  // namespace kiln::timings
