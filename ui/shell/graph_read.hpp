#pragma once
// The window's one read of the graph entries, for the Overview's entries section, the browser's
// readable names, the Compile times view, the health check (health::SeenEntries), the eviction plan
// (inductor::EntryNeeds) and the portability summary (portability::SeenKeys). It starts as soon as
// the scan has walked fxgraph/ and aotautograd/ (ScanOptions::on_graph_dirs) and reads beside the
// rest of the walk, whose second core would idle; what needs the whole scan (the tree the labels name,
// the compile times' join) waits for it. A root the walk hands no graph dirs for is read after the scan.
#include <functional>
#include <memory>

#include "overview/overview.hpp"
#include "util/gate.hpp"

namespace kiln::health {
class SeenEntries;
}
namespace kiln::inductor {
struct EntryNeeds;
struct GraphEntryFiles;
struct OpenedRoot;
}  // namespace kiln::inductor
namespace kiln::portability {
class SeenKeys;
}
namespace kiln::timings {
struct CompileTimes;
}

namespace kiln::ui {

class CacheTree;
class EntryLabels;
class JobControl;

// One scan's read: made when the scan starts, shared by the scan job, the read and the window.
struct GraphReadState {
    GraphReadState();
    std::shared_ptr<health::SeenEntries> seen;  // the check takes the entries as this read sees them
    bool started = false;                       // the read's job was started (the UI thread's flag)
    // The scan job's end, from its thread: the tree, or null (the scan failed or was cancelled).
    void scanEnded(std::shared_ptr<const CacheTree> tree);
    // Until scanEnded (the tree, or null) or `cancel` rises (null).
    std::shared_ptr<const CacheTree> awaitTree(const std::atomic<bool>* cancel) const;

private:
    Gate scanned_;
    std::shared_ptr<const CacheTree> tree_;  // written before scanned_ opens
};

struct GraphReadResult {
    std::shared_ptr<const CacheTree> tree;  // null: no scan to show it with, or cancelled
    overview::EntriesSection section;
    std::shared_ptr<const timings::CompileTimes> times;
    std::shared_ptr<const EntryLabels> labels;  // null when the read did not finish
};

// What eviction and portability take of the entries, handed over as soon as the read ends (null: the
// read did not finish; they read the entries themselves).
using EntryNeedsReady =
    std::function<void(std::shared_ptr<const CacheTree> tree, std::shared_ptr<const inductor::EntryNeeds> needs,
                       std::shared_ptr<const portability::SeenKeys> keys)>;

// The read, on the calling (pool) thread. `files`: the entries as the walk handed them over, read
// beside it through `root` (the scan's opened root); null: the entries of the tree's scan, once it is
// in. Closes state.seen when the read ends.
GraphReadResult readGraphEntries(GraphReadState& state, const inductor::OpenedRoot& root,
                                 const inductor::GraphEntryFiles* files, JobControl& ctl,
                                 const EntryNeedsReady& needsReady);

}  // namespace kiln::ui
