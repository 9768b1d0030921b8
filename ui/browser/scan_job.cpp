#include "ui/browser/scan_job.hpp"

#include <QElapsedTimer>

#include "bundle/temp_root.hpp"
#include "ui/jobs/job_control.hpp"
#include "ui/jobs/release_memory.hpp"

namespace kiln::ui {

ScanOutcome runScan(std::shared_ptr<const bundle::RootOrBlob> opened, JobControl& ctl,
                    std::shared_ptr<ScanCounters> counters, const ScanHooks& hooks) {
    QElapsedTimer timer;
    timer.start();
    ScanOutcome out;
    inductor::ScanOptions opt;
    opt.cancel = ctl.cancelFlag();
    opt.progress_every = 512;  // cheap: two relaxed stores; the UI samples them on its own timer
    opt.progress = [&ctl, counters](const inductor::ScanProgress& p) {
        ctl.setProgress(static_cast<std::int64_t>(p.files), 0);
        if (counters) {
            counters->files.store(p.files, std::memory_order_relaxed);
            counters->bytes.store(p.bytes, std::memory_order_relaxed);
        }
    };
    opt.on_graph_dirs = hooks.graphDirs;
    auto scan = inductor::scan_cache(opened->opened(), opt);
    if (!scan) {
        out.error = QString::fromStdString(scan.error().str());
        return out;
    }
    if (hooks.walked) hooks.walked(*scan);
    out.tree = buildCacheTree(std::make_shared<const inductor::ScanResult>(std::move(scan).value()));
    releaseFreedMemory();  // the walk's and the tree build's temporaries
    out.elapsedMs = timer.elapsed();
    return out;
}

}  // namespace kiln::ui
