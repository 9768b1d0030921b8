// gui_open ROOT: opens Kiln's main window on ROOT (offscreen unless QT_QPA_PLATFORM says otherwise),
// the way `kiln ROOT` does, and prints one JSON line:
//   first_paint_ms  the window's first paint event
//   overview_ms     the Overview showing its numbers (OverviewPanel::computed)
//   populated_ms    the browser's model holding every file of the scan (MainWindow::cacheScanned)
//   rows            the files the model holds (its category rows' Files, summed)
//   max_gap_ms      the UI thread's longest wait between two ticks of a 5 ms timer, open to populated
// All times from before the window is built. Exit 0, 1 when the scan fails, 2 on bad usage.
#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QTimer>

#include <algorithm>
#include <cstdio>

#include "browser/cache_browser.hpp"
#include "browser/cache_tree_model.hpp"
#include "overview/overview_panel.hpp"
#include "shell/main_window.hpp"
#include "timeline/timeline_install.hpp"
#include "tuning/timings_install.hpp"
#ifdef KILN_HAVE_REMOTE
#include "remote/remote_install.hpp"
#endif

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

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: gui_open ROOT\n");
        return 2;
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QElapsedTimer clock;
    clock.start();
    auto ms = [&clock] { return double(clock.nsecsElapsed()) / 1e6; };
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("KilnBench"));  // not the user's settings

    double lastTick = -1, maxGap = 0, overviewMs = -1, populatedMs = -1;
    bool populated = false;
    QTimer ticker;
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const double now = ms();
        if (lastTick >= 0 && !populated) maxGap = std::max(maxGap, now - lastTick);
        lastTick = now;
    });
    ticker.start(5);

    kiln::ui::MainWindow w;
    kiln::ui::installAutotuneViews(w);
    kiln::ui::installTimelineView(w);
#ifdef KILN_HAVE_REMOTE
    kiln::ui::installRemoteSource(w);
#endif
    PaintSpy paint(&w, clock);
    app.installEventFilter(&paint);
    int exitCode = 0;
    auto finish = [&] {
        if (populatedMs < 0 || overviewMs < 0 || paint.firstMs < 0) return;
        std::printf(
            "{\"first_paint_ms\": %.1f, \"overview_ms\": %.1f, \"populated_ms\": %.1f, \"rows\": %llu, "
            "\"max_gap_ms\": %.1f}\n",
            paint.firstMs, overviewMs, populatedMs, static_cast<unsigned long long>(modelFiles(*w.browser()->model())),
            maxGap);
        std::fflush(stdout);
        app.exit(exitCode);
    };
    QObject::connect(w.overviewPanel(), &kiln::ui::OverviewPanel::computed, [&] {
        if (overviewMs < 0) overviewMs = ms();
        finish();
    });
    QObject::connect(&w, &kiln::ui::MainWindow::cacheScanned, [&] {
        if (populated) return;
        populated = true;
        populatedMs = ms();
        QTimer::singleShot(0, &app, finish);
    });
    QTimer poll;  // a first paint that comes after everything else
    QObject::connect(&poll, &QTimer::timeout, finish);
    poll.start(50);
    w.resize(1400, 860);
    w.show();
    w.openRoot(QString::fromLocal8Bit(argv[1]));
    QTimer::singleShot(600'000, &app, [&] {
        std::fprintf(stderr, "gui_open: not done after 600 s (paint %.0f, overview %.0f, populated %.0f ms)\n",
                     paint.firstMs, overviewMs, populatedMs);
        app.exit(1);
    });
    return app.exec();
}
