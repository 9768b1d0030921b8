// gui_open ROOT: opens Kiln's main window on ROOT (offscreen unless QT_QPA_PLATFORM says otherwise),
// the way `kiln ROOT` does (every view app/gui installs), and prints one JSON line:
//   first_paint_ms  the window's first paint event
//   overview_ms     the Overview's first useful paint: its view painted with what is known (the
//                   scan's progress: files and bytes so far), the Overview being the tab shown on open
//   overview_stats_ms  the Overview showing the scan's statistics (its "stats" section)
//   overview_complete_ms  every Overview section in (OverviewPanel::computed)
//   populated_ms    the browser's model holding every file of the scan (MainWindow::cacheScanned)
//   rows            the files the model holds (its category rows' Files, summed)
//   max_gap_ms      the UI thread's longest wait between two ticks of a 5 ms timer, from open to
//                   three ticks after both populated (the view's layout and paint of the new tree)
//                   and overview_complete (every Overview section painted)
//   max_busy_ms     the most CPU time the UI thread itself used between two ticks (on a loaded
//                   machine a gap can be a wait for a core; this part is Kiln's own work)
//   expand_largest_ms, filter_ms  then: expanding the largest category, filtering by a kernel name
//   max_busy_use_ms the UI thread's most CPU time between two ticks during those two
//   pid             this process (its UI thread's id), for bench/scale/ui_waits.py
// KILN_SLOW_EVENTS=MS: every event the UI thread took more than MS of CPU to handle, with its
// receiver's class and object name and the event type (stderr), to find what a long stretch was; a job
// result's delivery (to the JobRunner) also names the job's channel.
// KILN_JOB_TIMES=1: when each job channel starts and ends (stderr, seen by the 5 ms ticker), to see
// which jobs the Overview's sections wait behind.
// All times from before the window is built. `gui_open --browser-only ROOT`: the browser alone
// (populated_ms, rows, max_gap_ms, max_busy_ms), for its share of memory and UI-thread time. Exit 0, 1 when the scan fails, 2 on bad usage.
#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QFutureWatcher>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeView>
#include <QtConcurrent/QtConcurrentRun>

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <utility>

#include "bundle/temp_root.hpp"
#include "frontend/open_cache.hpp"
#include "ui/browser/cache_browser.hpp"
#include "ui/browser/cache_tree_model.hpp"
#include "ui/browser/scan_job.hpp"
#include "ui/health/health_panel.hpp"
#include "ui/jobs/job_control.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/jobs/release_memory.hpp"
#include "ui/overview/overview_panel.hpp"
#include "ui/shell/install_views.hpp"
#include "ui/shell/main_window.hpp"

namespace {

// Notes the first paint of any widget of one window.
class PaintSpy : public QObject {
public:
    PaintSpy(QWidget* window, const QElapsedTimer& clock) : window_(window), clock_(clock) {}
    double firstMs = -1;

protected:
    bool eventFilter(QObject* o, QEvent* e) override {
        if (firstMs < 0 && e->type() == QEvent::Paint && o->isWidgetType() &&
            static_cast<QWidget*>(o)->window() == window_)
            firstMs = double(clock_.nsecsElapsed()) / 1e6;
        return false;
    }

private:
    QWidget* window_;
    const QElapsedTimer& clock_;
};

std::uint64_t modelFiles(const kiln::ui::CacheTreeModel& m) {
    std::uint64_t files = 0;
    for (int r = 0; r < m.rowCount(); ++r)
        files += m.index(r, kiln::ui::CacheTreeModel::FilesColumn).data().toULongLong();
    return files;
}

// The UI thread's own CPU time: a gap it spent waiting for a core (a loaded machine) is not a stall.
double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// After the measured part, what a user does next: expand the largest category (the UI thread lays
// out its rows: expand_largest_ms), then filter by a kernel name until the result shows (filter_ms).
std::pair<double, double> useTheBrowser(kiln::ui::CacheBrowser& b) {
    QAbstractItemModel* m = b.view()->model();
    QModelIndex largest;
    for (int r = 0; r < m->rowCount(); ++r)
        if (!largest.isValid() || m->rowCount(m->index(r, 0)) > m->rowCount(largest)) largest = m->index(r, 0);
    QElapsedTimer t;
    t.start();
    b.view()->expand(largest);
    QCoreApplication::processEvents();  // the view's delayed layout of the new rows, and their paint
    const double expandMs = double(t.nsecsElapsed()) / 1e6;
    t.restart();
    b.setFilterText(QStringLiteral("triton_poi_fused"));
    while (b.model()->isReordering()) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    QCoreApplication::processEvents();
    return {expandMs, double(t.nsecsElapsed()) / 1e6};
}

// KILN_MEM_CHECKPOINTS=1: the process's resident and malloc'd memory at each step (stderr), to see
// where the GUI's memory goes (heaptrack may not be installed). mallinfo2 walks the heap's free lists:
// the checkpoints cost the UI thread tens of ms, so time without them.
void memCheckpoint(const char* what, double atMs) {
    static const bool on = qEnvironmentVariableIsSet("KILN_MEM_CHECKPOINTS");
    if (!on) return;
    long rssKb = 0, hwmKb = 0, anonKb = 0, fileKb = 0;
    if (FILE* f = std::fopen("/proc/self/status", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f)) {
            std::sscanf(line, "VmRSS: %ld", &rssKb);
            std::sscanf(line, "VmHWM: %ld", &hwmKb);
            std::sscanf(line, "RssAnon: %ld", &anonKb);
            std::sscanf(line, "RssFile: %ld", &fileKb);
        }
        std::fclose(f);
    }
    const struct mallinfo2 mi = mallinfo2();
    std::fprintf(stderr,
                 "gui_open: mem %-22s at %8.0f ms: rss %6.0f MB (anon %6.0f, file %5.0f), peak %6.0f MB, malloc in use "
                 "%6.0f MB, free in arenas %6.0f MB\n",
                 what, atMs, double(rssKb) / 1024, double(anonKb) / 1024, double(fileKb) / 1024, double(hwmKb) / 1024,
                 double(mi.uordblks + mi.hblkhd) / 1e6, double(mi.fordblks) / 1e6);
}

// The application, timing each top-level event dispatch on the UI thread when KILN_SLOW_EVENTS is set.
class TimedApp : public QApplication {
public:
    TimedApp(int& argc, char** argv) : QApplication(argc, argv) {
        bool ok = false;
        slowMs_ = qEnvironmentVariableIntValue("KILN_SLOW_EVENTS", &ok);
        if (!ok) slowMs_ = -1;
    }
    bool notify(QObject* receiver, QEvent* e) override {
        if (slowMs_ < 0 || depth_ > 0) return QApplication::notify(receiver, e);
        const double cpu0 = threadCpuMs();
        const int type = e->type();
        const QByteArray cls = receiver->metaObject()->className();
        QString name = receiver->objectName();
        if (QObject* up = receiver->parent())
            name += QStringLiteral(" in ") + QLatin1String(up->metaObject()->className());
        const QStringList before = runningChannels();
        ++depth_;
        const bool r = QApplication::notify(receiver, e);
        --depth_;
        const double cpu = threadCpuMs() - cpu0;
        if (cpu > slowMs_) {
            QStringList ended;  // a job's result: which one ended
            if (receiver == jobs)
                for (const QString& c : before)
                    if (!jobs->isRunning(c)) ended << c;
            std::fprintf(stderr, "gui_open: slow event type %d to %s \"%s\"%s: %.1f ms CPU\n", type, cls.constData(),
                         qPrintable(name),
                         ended.isEmpty() ? "" : qPrintable(QStringLiteral(" (job %1)").arg(ended.join(u','))), cpu);
        }
        return r;
    }
    kiln::ui::JobRunner* jobs = nullptr;  // the window's, to name a job whose result was slow
    // KILN_JOB_TIMES: each channel's start and end as the ticker sees them.
    void noteJobs(double nowMs) {
        static const bool on = qEnvironmentVariableIsSet("KILN_JOB_TIMES");
        if (!on || !jobs) return;
        const QStringList now = runningChannels();
        for (const QString& c : now)
            if (!running_.contains(c))
                std::fprintf(stderr, "gui_open: job %-14s start %8.0f ms\n", qPrintable(c), nowMs);
        for (const QString& c : running_)
            if (!now.contains(c)) std::fprintf(stderr, "gui_open: job %-14s end   %8.0f ms\n", qPrintable(c), nowMs);
        running_ = now;
    }

private:
    QStringList runningChannels() const {
        QStringList out;
        if (!jobs) return out;
        for (const char* c : {"scan", "graphs", "overview", "health", "portability", "timings", "timeline", "startup",
                              "compile-times", "trace", "guards", "inspect", "diff", "remote-list", "recompile",
                              "root-timings", "scan-health", "retune-progress", "session-log"})
            if (jobs->isRunning(QLatin1String(c))) out << QLatin1String(c);
        return out;
    }

    int slowMs_ = -1;
    int depth_ = 0;
    QStringList running_;
};

}  // namespace

// --browser-only: the cache browser alone (no Overview, timeline or timings jobs), to tell the
// browser's memory and UI-thread time from the rest of the window's.
int browserOnly(QApplication& app, const QString& root, const QElapsedTimer& clock) {
    kiln::ui::CacheBrowser b;
    b.resize(700, 860);
    b.show();
    double last = -1, lastCpu = 0, maxGap = 0, maxBusy = 0;
    QTimer ticker;
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const double now = double(clock.nsecsElapsed()) / 1e6, cpu = threadCpuMs();
        if (last >= 0) {
            maxGap = std::max(maxGap, now - last);
            maxBusy = std::max(maxBusy, cpu - lastCpu);
        }
        last = now;
        lastCpu = cpu;
    });
    ticker.start(5);
    QFutureWatcher<kiln::ui::ScanOutcome> scan;
    QObject::connect(&scan, &QFutureWatcherBase::finished, [&] {
        b.setTree(scan.result().tree);
        const double populatedMs = double(clock.nsecsElapsed()) / 1e6;
        QCoreApplication::processEvents();
        std::printf("{\"populated_ms\": %.1f, \"rows\": %llu, \"max_gap_ms\": %.1f, \"max_busy_ms\": %.1f}\n",
                    populatedMs, static_cast<unsigned long long>(modelFiles(*b.model())), maxGap, maxBusy);
        std::fflush(stdout);
        app.exit(b.tree() ? 0 : 1);
    });
    scan.setFuture(QtConcurrent::run([root] {
        kiln::ui::JobControl ctl;
        auto opened = kiln::frontend::open_cache(std::filesystem::path(root.toStdString()));
        if (!opened) return kiln::ui::ScanOutcome{nullptr, QString::fromStdString(opened.error().str()), 0};
        return kiln::ui::runScan(std::make_shared<const kiln::bundle::RootOrBlob>(std::move(opened).value()), ctl);
    }));
    return app.exec();
}

int main(int argc, char** argv) {
    const bool alone = argc == 3 && QByteArray(argv[1]) == "--browser-only";
    if (argc != 2 && !alone) {
        std::fprintf(stderr, "usage: gui_open [--browser-only] ROOT\n");
        return 2;
    }
    kiln::ui::returnLargeBlocksWhenFreed();  // as app/gui's main() does
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QElapsedTimer clock;
    clock.start();
    auto ms = [&clock] { return double(clock.nsecsElapsed()) / 1e6; };
    TimedApp app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("KilnBench"));  // not the user's settings
    if (alone) return browserOnly(app, QString::fromLocal8Bit(argv[2]), clock);

    double lastTick = -1, maxGap = 0, overviewMs = -1, populatedMs = -1, lastCpu = -1, maxBusy = 0, maxBusyUse = 0;
    double overviewPaintMs = -1, overviewStatsMs = -1;
    bool overviewShown = false;
    bool populated = false, settled = false, done = false;
    int ticksAfter = 0;
    QTimer ticker;
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const double now = ms();
        const double cpu = threadCpuMs();
        if (lastTick >= 0 && !settled) {
            maxGap = std::max(maxGap, now - lastTick);
            maxBusy = std::max(maxBusy, cpu - lastCpu);
        } else if (lastTick >= 0) {
            maxBusyUse = std::max(maxBusyUse, cpu - lastCpu);
        }
        // The view lays out and paints the new tree on the event-loop turns after the hand-over:
        // those count as populating too.
        // The Overview's sections fill in until it is complete: those count too.
        if (populated && overviewMs >= 0 && ++ticksAfter >= 3) settled = true;
        if (lastTick >= 0 && now - lastTick > 50)
            std::fprintf(stderr, "gui_open: UI thread gap %.0f ms (%.0f ms of it on the CPU) ending at %.0f ms\n",
                         now - lastTick, cpu - lastCpu, now);
        lastTick = now;
        lastCpu = cpu;
        app.noteJobs(now);
    });
    ticker.start(5);

    kiln::ui::MainWindow w;
    kiln::ui::HealthPanel* health = kiln::ui::installAllViews(w).health;
    app.jobs = w.jobs();
    QObject::connect(health, &kiln::ui::HealthPanel::updated, [&] { memCheckpoint("health view checked", ms()); });
    PaintSpy paint(&w, clock);
    app.installEventFilter(&paint);
    int exitCode = 0;
    auto finish = [&] {
        if (done || !settled || overviewMs < 0 || paint.firstMs < 0 || overviewPaintMs < 0) return;
        done = true;  // useTheBrowser runs the event loop: no second report
        const auto rows = static_cast<unsigned long long>(modelFiles(*w.browser()->model()));
        const auto [expandMs, filterMs] = useTheBrowser(*w.browser());
        std::printf(
            "{\"first_paint_ms\": %.1f, \"overview_ms\": %.1f, \"overview_stats_ms\": %.1f, "
            "\"overview_complete_ms\": %.1f, \"populated_ms\": %.1f, \"rows\": %llu, "
            "\"max_gap_ms\": %.1f, \"max_busy_ms\": %.1f, \"expand_largest_ms\": %.1f, \"filter_ms\": %.1f, "
            "\"max_busy_use_ms\": %.1f, \"pid\": %lld}\n",
            paint.firstMs, overviewPaintMs, overviewStatsMs, overviewMs, populatedMs, rows, maxGap, maxBusy, expandMs,
            filterMs, maxBusyUse, static_cast<long long>(QCoreApplication::applicationPid()));
        std::fflush(stdout);
        app.exit(exitCode);
    };
    // The Overview's first useful paint: its view's first paint once it shows what is known.
    class OverviewPaint : public QObject {
    public:
        std::function<void()> onPaint;

    protected:
        bool eventFilter(QObject*, QEvent* e) override {
            if (e->type() == QEvent::Paint && onPaint) onPaint();
            return false;
        }
    } overviewPaint;
    overviewPaint.onPaint = [&] {
        if (overviewShown && overviewPaintMs < 0) overviewPaintMs = ms();
    };
    w.overviewPanel()->view()->viewport()->installEventFilter(&overviewPaint);
    QObject::connect(w.overviewPanel(), &kiln::ui::OverviewPanel::sectionShown, [&](const QString& what) {
        overviewShown = true;
        if (what == QLatin1String("stats") && overviewStatsMs < 0) overviewStatsMs = ms();
        memCheckpoint(qPrintable(QStringLiteral("overview ") + what), ms());
    });
    QObject::connect(w.overviewPanel(), &kiln::ui::OverviewPanel::computed, [&] {
        if (overviewMs < 0) overviewMs = ms();
        memCheckpoint("overview complete", overviewMs);
        finish();
    });
    QObject::connect(&w, &kiln::ui::MainWindow::cacheScanned, [&] {
        if (populated) return;
        populated = true;
        populatedMs = ms();
        memCheckpoint("browser populated", populatedMs);
    });
    QTimer poll;  // a first paint that comes after everything else
    QObject::connect(&poll, &QTimer::timeout, finish);
    poll.start(50);
    w.resize(1400, 860);
    w.show();
    w.openRoot(QString::fromLocal8Bit(argv[1]));
    QTimer::singleShot(600'000, &app, [&] {
        std::fprintf(stderr,
                     "gui_open: not done after 600 s (paint %.0f, overview %.0f, complete %.0f, populated %.0f ms)\n",
                     paint.firstMs, overviewPaintMs, overviewMs, populatedMs);
        app.exit(1);
    });
    const int rc = app.exec();
    app.jobs = nullptr;  // the window goes before the application: no event may ask its runner after this
    return rc;
}
