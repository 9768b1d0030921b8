#include "browser/scan_job.hpp"

#include <QElapsedTimer>

#include "jobs/job_control.hpp"

namespace kiln::ui {

ScanOutcome runScan(const QString& root, JobControl& ctl) {
    QElapsedTimer timer;
    timer.start();
    ScanOutcome out;
    inductor::ScanOptions opt;
    opt.cancel = ctl.cancelFlag();
    opt.progress_every = 512;  // cheap: two relaxed stores; the UI samples them on its own timer
    opt.progress = [&ctl](const inductor::ScanProgress& p) { ctl.setProgress(static_cast<std::int64_t>(p.files), 0); };
    auto scan = inductor::scan_cache(root.toStdString(), opt);
    if (!scan) {
        out.error = QString::fromStdString(scan.error().str());
        return out;
    }
    out.tree = buildCacheTree(std::make_shared<const inductor::ScanResult>(std::move(scan).value()));
    out.elapsedMs = timer.elapsed();
    return out;
}

}  // namespace kiln::ui
