#include "ui/shell/screenshot_tour.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLineEdit>
#include <QPixmap>
#include <QTabWidget>
#include <QThread>
#include <QTreeView>

#include <cstdio>

#include "trace/compile_timeline.hpp"
#include "ui/browser/cache_browser.hpp"
#include "ui/browser/cache_tree_model.hpp"
#include "ui/diff/diff_view.hpp"
#include "ui/inspector/guards_panel.hpp"
#include "ui/inspector/inspector_widget.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/overview/overview_panel.hpp"
#include "ui/portability/portability_panel.hpp"
#include "ui/portability/verdict_model.hpp"
#include "ui/shell/main_window.hpp"

namespace kiln::ui {

namespace {

template <class Pred>
bool settle(Pred done, int timeoutMs = 60000) {
    QElapsedTimer t;
    t.start();
    while (!done() && t.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(5);
    }
    QCoreApplication::processEvents();
    return done();
}

QString firstGraphEntry(const CacheTree& tree) {
    for (int i = 0; i < tree.size(); ++i)
        if (tree.node(i).kind == CacheNode::Kind::file && tree.node(i).category == inductor::Category::fxgraph)
            return tree.path(i);
    return {};
}

// The Portability view against `target`, the first entry that would miss (else the first) selected.
bool showPortability(MainWindow& w, const QString& target) {
    auto* panel = w.findChild<PortabilityPanel*>();
    if (!panel) return false;
    bool done = false;
    QObject::connect(panel, &PortabilityPanel::checked, panel, [&] { done = true; });
    w.workspace()->setCurrentWidget(panel);
    for (auto* dock : w.findChildren<QDockWidget*>()) dock->hide();  // the whole width for the view
    panel->setTarget({false, target});
    panel->check();
    if (!settle([&] { return done; }, 300000) || !panel->outcome().report) return false;
    VerdictModel* m = panel->verdicts();
    int row = 0;
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, 0).data(VerdictModel::VerdictRole).toInt() == int(portability::Verdict::miss)) {
            row = r;
            break;
        }
    panel->selectRow(row);
    return true;
}

// "Compare devices" -> "compare-devices"
QString fileName(QString title) {
    return title.remove(QLatin1Char('&')).toLower().replace(QLatin1Char(' '), QLatin1Char('-'));
}

}  // namespace

int runScreenshotTour(MainWindow& w, const TourOptions& opt) {
    int failures = 0;
    auto shoot = [&](const QString& name) {
        QCoreApplication::processEvents();
        const QString file = QDir(opt.outDir).filePath(opt.prefix + name + QStringLiteral(".png"));
        if (w.grab().save(file, "PNG")) std::printf("wrote %s\n", qPrintable(file));
        else {
            std::fprintf(stderr, "kiln: could not write %s\n", qPrintable(file));
            ++failures;
        }
    };
    QDir().mkpath(opt.outDir);
    // Stops at once when the root cannot be opened (a truncated blob, a failed scan), with its error.
    settle([&] { return (w.browser()->tree() && !w.jobs()->isBusy()) || !w.openError().isEmpty(); });
    if (!w.openError().isEmpty()) {
        std::fprintf(stderr, "kiln: %s\n", qPrintable(w.openError()));
        return 1;
    }
    if (!w.browser()->tree() || w.jobs()->isBusy()) {
        std::fprintf(stderr, "kiln: the cache was not scanned in 60 s\n");
        return 1;
    }
    // The first screen: the Overview, once computed.
    w.showView(QStringLiteral("Overview"));
    settle([&] { return !w.overviewPanel()->isLoading() && !w.jobs()->isBusy(); });
    shoot(QStringLiteral("overview"));
    w.showCacheTab();

    // --select as the user typed it: relative to the root or the current folder too.
    const QString entry =
        opt.select.isEmpty() ? firstGraphEntry(*w.browser()->tree()) : w.browser()->findArtifact(opt.select);
    if (!opt.select.isEmpty() && entry.isEmpty()) {
        std::fprintf(stderr, "kiln: --select %s: nothing in the cache is at that path\n", qPrintable(opt.select));
        ++failures;
    }
    QString shown;
    QObject::connect(&w, &MainWindow::inspectionShown, &w, [&](const QString& p) { shown = p; });
    w.browser()->view()->expandToDepth(0);
    if (!entry.isEmpty() && w.browser()->selectPath(entry))
        settle([&] { return shown == entry && !w.jobs()->isBusy(); });

    const char* names[] = {"summary", "source", "object-tree", "guards", "key-components", "raw"};
    for (int i = 0; i < w.inspector()->count() && i < 6; ++i) {
        if (!w.inspector()->isTabEnabled(i)) continue;
        w.inspector()->setCurrentIndex(i);
        if (i == InspectorWidget::ObjectTreeTab) {
            auto* view = w.inspector()->findChild<QTreeView*>();
            if (view) view->expandToDepth(1);
        }
        if (i == InspectorWidget::GuardsTab && !opt.sizes.isEmpty()) {
            GuardsPanel* g = w.inspector()->guardsPanel();
            settle([&] { return !g->symbols().isEmpty(); }, 10000);
            for (int s = 0; s < g->symbols().size() && s < opt.sizes.size(); ++s)
                g->field(g->symbols()[s])->setText(QString::number(opt.sizes[s]));
            settle([&] { return g->outcome().values == opt.sizes.mid(0, g->symbols().size()); }, 10000);
        }
        shoot(QStringLiteral("tab-") + QString::fromLatin1(names[i]));
    }
    w.inspector()->setCurrentIndex(0);
    w.browser()->view()->collapseAll();
    w.browser()->view()->expandToDepth(0);
    w.showCacheTab();
    shoot(QStringLiteral("browser"));

    if (!opt.diffWith.isEmpty() && !entry.isEmpty()) {
        bool done = false;
        QObject::connect(w.diffView(), &DiffView::compared, &w, [&] { done = true; });
        w.workspace()->setCurrentWidget(w.diffView());
        // The cache events of the runs beside the root in the picker, each named by its function.
        const auto traces = trace::find_trace_dirs(w.currentRoot().toStdString());
        if (!traces.empty()) {
            bool loaded = false;
            QObject::connect(w.diffView(), &DiffView::traceLoaded, &w, [&] { loaded = true; });
            w.diffView()->loadTrace(QString::fromStdString(traces.front().string()));
            settle([&] { return loaded; });
        }
        w.diffView()->setSideA(entry);
        // B as a user picks it: the cache event of the run that compiled it (the miss), when a log
        // beside the root has one; else the path given.
        // --diff-with names the key's folder (fxgraph/<xx>/<key>) or an entry in it.
        const QFileInfo with(opt.diffWith);
        const QString keyB = with.isDir() ? with.fileName() : QFileInfo(with.absolutePath()).fileName();
        const int event = w.diffView()->traceEventOf(keyB);
        if (event >= 0) w.diffView()->pickTraceEvent(event);
        else w.diffView()->setSideB(opt.diffWith);
        w.diffView()->compare();
        settle([&] { return done; });
        shoot(QStringLiteral("diff"));
    }

    // Every view other features added (Autotune, Compare devices, Compile times, Compile timeline,
    // Health ...): named after its tab title, shot once its background work is done.
    for (int i = 0; i < w.workspace()->count(); ++i) {
        QWidget* page = w.workspace()->widget(i);
        // The Portability view shows something only once checked against a target (below).
        if (page == w.overviewPanel() || page == w.diffView() || qobject_cast<PortabilityPanel*>(page) ||
            i == w.workspace()->indexOf(w.browser()->parentWidget()))
            continue;
        w.workspace()->setCurrentIndex(i);
        settle([&] { return !w.jobs()->isBusy(); });
        settle([] { return false; }, 100);  // let charts lay out
        shoot(fileName(w.workspace()->tabText(i)));
    }
    // Docks hidden until chosen (Redis): shown for their picture, then put back as they were.
    for (auto* dock : w.findChildren<QDockWidget*>()) {
        const bool wasVisible = dock->isVisible();
        w.showCacheTab();
        dock->setVisible(true);
        settle([&] { return !w.jobs()->isBusy(); }, 5000);
        shoot(fileName(dock->windowTitle()));
        dock->setVisible(wasVisible);
    }
    if (!opt.portabilityTarget.isEmpty()) {
        if (showPortability(w, opt.portabilityTarget)) {
            shoot(QStringLiteral("portability"));
            w.showCacheTab();  // the verdicts' colours in the browser
            w.browser()->view()->expandToDepth(0);
            shoot(QStringLiteral("portability-browser"));
        } else {
            std::fprintf(stderr, "kiln: the Portability view could not check %s\n", qPrintable(opt.portabilityTarget));
            ++failures;
        }
    }
    return failures ? 1 : 0;
}

}  // namespace kiln::ui
