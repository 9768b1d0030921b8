#include "ui/shell/graph_read.hpp"

#include <algorithm>

#include "health/seen_entries.hpp"
#include "inductor/evict_needs.hpp"
#include "inductor/graph_entry.hpp"
#include "inductor/graph_list.hpp"
#include "portability/seen_keys.hpp"
#include "timings/compile_times.hpp"
#include "trace/graph_names.hpp"
#include "ui/browser/cache_tree.hpp"
#include "ui/browser/entry_labels.hpp"
#include "ui/jobs/job_control.hpp"
#include "ui/jobs/release_memory.hpp"
#include "util/cpus.hpp"

namespace kiln::ui {

namespace {
// Graph entries read per batch (a few hundred KB of rows).
constexpr std::size_t kGraphBatch = 512;
}  // namespace

GraphReadState::GraphReadState() : seen(std::make_shared<health::SeenEntries>()) {}

void GraphReadState::scanEnded(std::shared_ptr<const CacheTree> tree) {
    tree_ = std::move(tree);
    scanned_.open();
}

std::shared_ptr<const CacheTree> GraphReadState::awaitTree(const std::atomic<bool>* cancel) const {
    return scanned_.wait(cancel) ? tree_ : nullptr;
}

GraphReadResult readGraphEntries(GraphReadState& state, const inductor::OpenedRoot& root,
                                 const inductor::GraphEntryFiles* files, JobControl& ctl,
                                 const EntryNeedsReady& needsReady) {
    // Each row is kept only as its compile time and label: a million-file cache's rows are never all
    // held at once.
    GraphReadResult out;
    health::SeenEntries& seen = *state.seen;
    timings::CompileTimesFromRows times;
    auto labels = std::make_shared<EntryLabels>();
    auto needs = std::make_shared<inductor::EntryNeeds>();
    auto keys = std::make_shared<portability::SeenKeys>();
    auto take = [&](std::vector<inductor::GraphRow>& rows) {
        for (const auto& r : rows) {
            times.add(r);
            labels->add(r);
        }
    };
    // Each decoded entry, on the batch's reader threads: what eviction's units, the health check and
    // the portability summary need of it.
    auto visit = [&needs, &seen, &keys](std::size_t, const inductor::GraphRow& row, const inductor::GraphEntry& entry) {
        needs->add(row.path, entry);
        const bool aot = row.kind == "aotautograd";
        seen.add(row.path, aot, entry);
        keys->add(row.path, aot, entry);
    };
    Status read = ok_status();
    std::shared_ptr<const CacheTree> tree;
    if (files) {
        // One reader less than the CPUs: the walk has one of them, and it is what the rest waits for.
        const std::size_t readers = std::max<std::size_t>(1, std::size_t{usable_cpus()} - 1);
        read = trace::for_each_named_graph_batch(root, *files, std::nullopt, kGraphBatch, take, ctl.cancelFlag(), visit,
                                                 readers);
        tree = state.awaitTree(ctl.cancelFlag());
    } else if ((tree = state.awaitTree(ctl.cancelFlag()))) {
        read =
            trace::for_each_named_graph_batch(tree->scan(), std::nullopt, kGraphBatch, take, ctl.cancelFlag(), visit);
    }
    seen.close();  // the check goes on now, not when the Overview's section is made
    if (!tree) return out;
    // So do the Overview's portability summary and eviction plan, beside the rest of this read.
    needsReady(tree, read.ok() ? std::shared_ptr<const inductor::EntryNeeds>(std::move(needs)) : nullptr,
               read.ok() ? std::shared_ptr<const portability::SeenKeys>(std::move(keys)) : nullptr);
    auto found = std::make_shared<timings::CompileTimes>(
        read.ok() ? times.finish(tree->scan()) : timings::compile_times_of(tree->scan(), ctl.cancelFlag()));
    out.tree = tree;
    out.section = overview::entries_section(tree->scan(), *found);
    out.times = std::move(found);
    if (read.ok()) {
        labels->finish(*tree);
        out.labels = std::move(labels);
    }
    releaseFreedMemory();
    return out;
}

}  // namespace kiln::ui
