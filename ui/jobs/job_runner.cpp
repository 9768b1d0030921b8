#include "ui/jobs/job_runner.hpp"

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>

#include "util/cpus.hpp"

namespace kiln::ui {

namespace {
constexpr int kProgressIntervalMs = 100;  // ~10 updates a second is smooth and costs nothing
// Background work's nice value above the UI thread's: a tenth of its CPU weight, so a woken UI thread
// gets a core at once (at +5, a third, Kiln's own scan threads still held the UI thread 100 ms on 2 cores:
// bench/scale/ui_waits.py). Work still gets every idle core.
constexpr int kBackgroundNice = 10;
}  // namespace

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
    // Four at least: most jobs wait on the file system, and the Overview's sections must not queue behind
    // every view's load on a two-core machine. By the CPUs this process may use (a container's quota), not
    // the host's: 15 threads on 2 CPUs held the UI thread 404 ms (bench/RESULTS.md, issue 44).
    pool_.setMaxThreadCount(std::max(4, static_cast<int>(usable_cpus()) - 1));
    tick_.setInterval(kProgressIntervalMs);
    connect(&tick_, &QTimer::timeout, this, &JobRunner::sample);
}

void JobRunner::yieldToUiThread() {
#if defined(__linux__)
    // Linux keeps a nice value per thread; threads this one creates start with it.
    thread_local const bool lowered = [] {
        const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
        return ::setpriority(PRIO_PROCESS, tid, std::min(19, ::getpriority(PRIO_PROCESS, tid) + kBackgroundNice)) == 0;
    }();
    (void)lowered;
#endif
}

JobRunner::~JobRunner() {
    for (auto& a : active_) a.ctl->requestCancel();
    pool_.waitForDone();
}

quint64 JobRunner::begin(const QString& channel, const QString& label, std::shared_ptr<JobControl> ctl) {
    const bool wasBusy = isBusy();
    auto it = active_.find(channel);
    if (it != active_.end()) it->ctl->requestCancel();  // superseded: let it stop early
    const quint64 id = next_id_++;
    ++started_[channel];
    active_.insert(channel, Active{id, label, std::move(ctl)});
    if (!tick_.isActive()) tick_.start();
    if (!wasBusy) emit busyChanged(true);
    return id;
}

bool JobRunner::finish(const QString& channel, quint64 id) {
    auto it = active_.find(channel);
    if (it == active_.end() || it->id != id) {
        ++dropped_;  // a newer job owns the channel, or it was cancelled and forgotten
        return false;
    }
    active_.erase(it);
    if (!isBusy()) {
        tick_.stop();
        emit progress(QString(), 0, 0);
        emit busyChanged(false);
    }
    return true;
}

void JobRunner::cancel(const QString& channel) {
    auto it = active_.find(channel);
    if (it != active_.end()) it->ctl->requestCancel();
}

void JobRunner::cancelAll() {
    for (auto& a : active_) a.ctl->requestCancel();
}

void JobRunner::sample() {
    // Report the newest job that reports progress; others show as busy only.
    const Active* shown = nullptr;
    for (const auto& a : active_)
        if (!shown || (a.ctl->total() > 0 && a.id > shown->id) || (shown->ctl->total() == 0 && a.ctl->total() > 0))
            shown = &a;
    if (shown) emit progress(shown->label, shown->ctl->done(), shown->ctl->total());
}

}  // namespace kiln::ui
