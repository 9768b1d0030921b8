#include "timings/used_by.hpp"

#include <algorithm>
#include <atomic>
#include <string>
#include <utility>

#include "inductor/beneath_root.hpp"
#include "inductor/graph_entry.hpp"
#include "timings/graph_kernels.hpp"
#include "trace/graph_names.hpp"

namespace fs = std::filesystem;

namespace kiln::timings {

Result<int> mark_used_by(const inductor::OpenedRoot& root, TimingSet& set, std::size_t max_entries) {
    if (!inductor::is_directory_beneath(root, "fxgraph")) return 0;  // a folder of logs: no graphs to join
    // Names as `ls` gives them (with the trace beside the root when there is one), a batch of rows at a
    // time: the GUI runs this beside a million-file cache's other jobs, where all 23k rows were 19 MB.
    // Each entry is read once: its kernels are joined beside its row (EntryVisit, on the threads that
    // read the batch: the set is only read there), the marks made in order once the batch is named.
    struct Launch {
        std::size_t op = 0, choice = 0;
        std::string kernel;
    };
    constexpr std::size_t kBatch = 256;
    std::vector<std::vector<Launch>> launches(kBatch);  // by the row's place in its batch
    const TimingSet& joined = set;
    auto join = [&](std::size_t index, const inductor::GraphRow& row, const inductor::GraphEntry& entry) {
        if (row.kind != "fxgraph") return;
        auto kernels = graph_kernels(root, entry, &joined);
        if (!kernels.ok()) return;
        for (const auto& k : kernels->kernels)
            if (k.autotune) launches[index].push_back({k.autotune->op_index, k.autotune->choice_index, k.ref.name});
    };
    int marks = 0;
    std::size_t read = 0;
    std::atomic<bool> enough{false};  // max_entries read: no further batch is read
    Status listed = trace::for_each_named_graph_batch(
        root, std::nullopt, kBatch,
        [&](std::vector<inductor::GraphRow>& rows) {
            for (std::size_t i = 0; i < rows.size(); ++i) {
                const auto& row = rows[i];
                std::vector<Launch> launched = std::exchange(launches[i], {});
                if (row.kind != "fxgraph" || !row.error.empty() || enough) continue;
                if (++read > max_entries) {
                    enough = true;
                    continue;
                }
                for (auto& l : launched) {
                    Choice& c = set.ops[l.op].choices[l.choice];
                    GraphUse use{row.key, row.label(), std::move(l.kernel)};
                    bool dup = std::any_of(c.used_by.begin(), c.used_by.end(), [&](const GraphUse& u) {
                        return u.key == use.key && u.kernel == use.kernel;
                    });
                    if (dup) continue;
                    c.used_by.push_back(std::move(use));
                    ++marks;
                }
            }
        },
        &enough, join);
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
