#pragma once
// A cache scan as a background job: the core's scanner with progress and cancellation, then the
// browser's tree built from the result, all on the worker thread.
#include <QString>

#include <atomic>
#include <cstdint>
#include <memory>

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

// Walks the cache the window opened (frontend::open_cache) through its descriptor, never its path again.
ScanOutcome runScan(std::shared_ptr<const bundle::RootOrBlob> opened, JobControl& ctl,
                    std::shared_ptr<ScanCounters> counters = nullptr);

}  // namespace kiln::ui
