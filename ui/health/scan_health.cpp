#include "ui/health/scan_health.hpp"

#include <QMetaObject>

#include <utility>

#include "health/check.hpp"
#include "health/quarantine.hpp"
#include "ui/browser/cache_tree.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/jobs/release_memory.hpp"

namespace kiln::ui {

ScanHealth::ScanHealth(JobRunner* jobs, QObject* parent) : QObject(parent), jobs_(jobs) {}

QString ScanHealth::root() const { return tree_ ? tree_->root : QString(); }

void ScanHealth::setTree(std::shared_ptr<const CacheTree> tree, std::shared_ptr<health::SeenEntries> seen) {
    clear();
    tree_ = std::move(tree);
    seen_ = std::move(seen);
}

void ScanHealth::clear() {
    jobs_->cancel(QLatin1String(kChannel));
    ++generation_;
    tree_.reset();
    seen_.reset();
    result_.reset();
    running_ = false;
}

void ScanHealth::request() {
    if (result_) {
        // Asynchronously, as when the check runs: an asker connects before or after, either works.
        QMetaObject::invokeMethod(
            this,
            [this, r = result_] {
                if (r == result_) emit checked(r);
            },
            Qt::QueuedConnection);
        return;
    }
    if (running_ || !tree_) return;
    running_ = true;
    jobs_->start(
        QLatin1String(kChannel), tr("Checking cache health"),
        [tree = tree_, seen = std::exchange(seen_, nullptr), generation = generation_](JobControl& ctl) {
            auto out = std::make_shared<ScanHealthResult>();
            out->root = tree->root;
            health::CheckOptions options;
            options.default_target = true;  // the Health view's stale entries; looked up while the walk runs
            options.cancel = ctl.cancelFlag();
            options.seen = seen.get();
            auto checked = health::check_scan(tree->scan(), options);
            if (checked) out->report = std::make_shared<const health::HealthReport>(std::move(*checked));
            else out->error = QString::fromStdString(checked.error().str());
            for (const auto& m : health::list_quarantines(tree->scan().opened_root()))
                out->quarantines << QString::fromStdString(m.id);
            releaseFreedMemory();  // the check's transient sets and lists are gone: their pages too
            return std::make_pair(generation, std::shared_ptr<const ScanHealthResult>(std::move(out)));
        },
        [this](std::pair<quint64, std::shared_ptr<const ScanHealthResult>> done) {
            if (done.first != generation_) return;
            running_ = false;
            result_ = std::move(done.second);
            emit checked(result_);
        });
}

}  // namespace kiln::ui
