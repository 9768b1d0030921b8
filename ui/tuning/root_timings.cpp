#include "ui/tuning/root_timings.hpp"

#include <QFileInfo>
#include <QMetaObject>

#include <filesystem>
#include <utility>

#include "timings/collect.hpp"
#include "timings/used_by.hpp"
#include "ui/browser/cache_tree.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/jobs/release_memory.hpp"
#include "util/gate.hpp"

namespace kiln::ui {

RootTimings::RootTimings(JobRunner* jobs, QObject* parent) : QObject(parent), jobs_(jobs) {}

void RootTimings::setRoot(const QString& root, std::shared_ptr<const bundle::RootOrBlob> opened, bool scanComing) {
    jobs_->cancel(QLatin1String(kChannel));
    ++generation_;
    root_ = root;
    opened_ = std::move(opened);
    result_.reset();
    ops_.reset();
    running_ = false;
    scan_ = scanComing ? Scan::coming : Scan::none;
    tree_.reset();
    marksGate_.reset();
    waiting_ = false;
}

void RootTimings::setScan(std::shared_ptr<const CacheTree> tree, std::shared_ptr<const Gate> marksMayStart) {
    if (scan_ != Scan::coming) return;  // a rescan's: the set read from the first scan (or walk) stands
    if (tree && tree->root != root_) return;
    tree_ = std::move(tree);
    marksGate_ = std::move(marksMayStart);
    scan_ = tree_ ? Scan::kept : Scan::none;
    if (std::exchange(waiting_, false)) launch();
}

void RootTimings::request() {
    // What is known comes asynchronously, as when the read runs: an asker connects before or after.
    if (ops_)
        QMetaObject::invokeMethod(
            this,
            [this, o = ops_] {
                if (o == ops_) emit opsRead(o);
            },
            Qt::QueuedConnection);
    if (result_)
        QMetaObject::invokeMethod(
            this,
            [this, r = result_] {
                if (r == result_) emit loaded(r);
            },
            Qt::QueuedConnection);
    else if (!running_) start();
}

void RootTimings::reload() {
    jobs_->cancel(QLatin1String(kChannel));
    ++generation_;
    result_.reset();
    ops_.reset();
    // New timings were written since the scan: the root is walked again.
    scan_ = Scan::none;
    tree_.reset();
    marksGate_.reset();
    waiting_ = false;
    start();
}

void RootTimings::start() {
    if (root_.isEmpty() || opened_.expired()) return;
    running_ = true;
    if (scan_ == Scan::coming) {
        waiting_ = true;  // setScan launches it
        return;
    }
    launch();
}

void RootTimings::launch() {
    auto opened = opened_.lock();  // held by the read while it runs
    if (!opened) {
        running_ = false;
        return;
    }
    ++reads_;
    jobs_->start(
        QLatin1String(kChannel), tr("Reading timings"),
        [this, root = root_, opened, tree = tree_, marksGate = std::exchange(marksGate_, nullptr),
         generation = generation_](JobControl& ctl) {
            auto out = std::make_shared<RootTimingsResult>();
            out->root = root;
            // The root the window opened: its timing files from the window's scan of it, else a walk.
            auto r = tree ? timings::collect_timings_from(tree->scan(), ctl.cancelFlag())
                          : timings::collect_timings_from({opened->opened()});
            // The Overview's rows now: the marks below do not change them.
            auto ops = std::make_shared<const RootTimingsOps>(
                RootTimingsOps{root, r.ok() ? overview::ops_section(*r) : overview::OpsSection{}});
            // `this` outlives the job (the window's runner waits for its jobs before the window's
            // children go); a delivery for an older read is dropped.
            QMetaObject::invokeMethod(
                this,
                [this, generation, ops] {
                    if (generation != generation_) return;
                    ops_ = ops;
                    emit opsRead(ops);
                },
                Qt::QueuedConnection);
            if (!r.ok()) {
                out->set = std::make_shared<const timings::TimingSet>();
                out->error = QString::fromStdString(r.error().str());
            } else {
                // "used by graph ...": the root's graph entries, read here, off the UI thread, once the
                // window's first screen is in (a cancel still ends the wait).
                if (!marksGate || marksGate->wait(ctl.cancelFlag()))  // cancelled: the set is dropped anyway
                    if (auto marks = timings::mark_used_by(*r, {opened->opened()}); !marks.ok())
                        r->warnings.push_back(marks.error().str());
                out->set = std::make_shared<const timings::TimingSet>(std::move(r).value());
            }
            out->texts = opListTexts(*out->set);
            out->devices = devicesOf(out->set, QFileInfo(root).fileName().toStdString());
            if (out->devices.size() >= 2)
                out->comparison = std::make_shared<const timings::Comparison>(
                    timings::compare_devices(deviceTimingsOf(out->devices)));
            releaseFreedMemory();  // the walk's and the readers' temporaries
            return std::make_pair(generation, std::shared_ptr<const RootTimingsResult>(std::move(out)));
        },
        [this](std::pair<quint64, std::shared_ptr<const RootTimingsResult>> done) {
            if (done.first != generation_) return;
            running_ = false;
            result_ = std::move(done.second);
            emit loaded(result_);
        });
}

}  // namespace kiln::ui
