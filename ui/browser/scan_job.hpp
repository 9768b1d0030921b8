#pragma once
// A cache scan as a background job: the core's scanner with progress and cancellation, then the
// browser's tree built from the result, all on the worker thread.
#include <QString>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "ui/browser/cache_tree.hpp"

namespace kiln::bundle {
struct RootOrBlob;
}

namespace kiln::ui {

class JobControl;

struct ScanOutcome {
    std::shared_ptr<const CacheTree> tree;  // null on error or cancel
    QString error;                          // "cancelled" included
    qint64 elapsedMs = 0;
};

// What the scan has found so far (relaxed atomics the Overview samples while the scan runs).
struct ScanCounters {
    std::atomic<std::uint64_t> files{0}, bytes{0};
};

// What the scan hands over before it ends, on its thread.
struct ScanHooks {
    // An Inductor root's graph entry files, once fxgraph/ and aotautograd/ are walked (the rest of the
    // walk goes on): inductor::ScanOptions::on_graph_dirs.
    std::function<void(std::span<const inductor::Artifact>)> graphDirs;
    // The whole walk, before the browser's tree is built from it.
    std::function<void(const inductor::ScanResult&)> walked;
};

// Walks the cache the window opened (frontend::open_cache) through its descriptor, never its path again.
ScanOutcome runScan(std::shared_ptr<const bundle::RootOrBlob> opened, JobControl& ctl,
                    std::shared_ptr<ScanCounters> counters = nullptr, const ScanHooks& hooks = {});

}  // namespace kiln::ui
