#include "ui/tuning/timings_install.hpp"

#include <QFileInfo>
#include <QLayout>
#include <QMenu>
#include <QMenuBar>
#include <QTabWidget>

#include <memory>

#include "ui/browser/cache_browser.hpp"
#include "ui/common/view_host.hpp"
#include "ui/runs/handback_bar.hpp"
#include "ui/runs/launcher_dialog.hpp"
#include "ui/runs/rebench_dialog.hpp"
#include "ui/runs/recompile_dialog.hpp"
#include "ui/runs/retune_dialog.hpp"
#include "ui/tuning/autotune_compare_panel.hpp"
#include "ui/tuning/root_timings.hpp"
#include "ui/tuning/timings_compile_panel.hpp"
#include "ui/tuning/timings_panel.hpp"

namespace kiln::ui {

AutotuneViews installAutotuneViews(ViewHost& w) {
    AutotuneViews v;
    v.timings = new TimingsPanel(w.jobs());
    v.compare = new AutotuneComparePanel(w.jobs());
    v.compileTimes = new TimingsCompilePanel(w.jobs());
    w.addPanel(v.timings, QObject::tr("Autotune"));
    w.addPanel(v.compare, QObject::tr("Compare devices"));
    w.addPanel(v.compileTimes, QObject::tr("Compile times"));
    // A finished re-tune handed to torch (issue 31), below the autotune results.
    auto* handback = new HandbackBar(v.timings);
    if (auto* lay = v.timings->layout()) lay->addWidget(handback);
    w.onRootChanged(handback, [handback](const QString& root) { handback->setRoot(root); });
    handback->setRoot(w.currentRoot());
    // One read of the root's timings for the Autotune view, Compare devices and the Overview.
    RootTimings* shared = w.rootTimings();
    v.timings->followRootTimings(shared);
    v.compare->followRootTimings(shared);
    auto follow = [v, shared](const QString& root) {
        v.compare->loadRoot(root);
        shared->request();
    };
    w.onRootChanged(v.timings, follow);
    // Compile times from the window's one read of its scan's graph entries: the root is walked once, the
    // entries read once.
    w.onGraphEntriesRead(
        v.compileTimes, [v](std::shared_ptr<const CacheTree> tree, std::shared_ptr<const timings::CompileTimes> times) {
            v.compileTimes->showCompileTimes(std::move(tree), std::move(times));
        });
    w.onAutotuneOpRequested(v.timings, [v](int op) {
        if (v.timings->isLoading()) {  // the Overview was faster: select once the timings are in
            QObject::connect(
                v.timings, &TimingsPanel::loaded, v.timings, [v, op] { v.timings->selectOp(op); },
                Qt::SingleShotConnection);
        } else {
            v.timings->selectOp(op);
        }
    });
    if (!w.currentRoot().isEmpty()) follow(w.currentRoot());
    if (w.browser()->tree()) v.compileTimes->loadScan(w.browser()->tree());
    // A bar or row whose kernel module is in the cache: show it in the browser.
    QObject::connect(v.timings, &TimingsPanel::moduleSelected, w.hostWidget(), [&w](const QString& path) {
        if (w.browser()->selectPath(path)) w.showCacheTab();
    });
    QObject::connect(v.compileTimes, &TimingsCompilePanel::entryActivated, w.hostWidget(), [&w](const QString& path) {
        if (w.browser()->selectPath(path)) w.showCacheTab();
    });
    QObject::connect(v.timings, &TimingsPanel::launchRequested, w.hostWidget(), [&w, v, shared] {
        auto* dlg = new LauncherDialog(w.currentRoot(), w.hostWidget());
        dlg->setAttribute(Qt::WA_DeleteOnClose);
        QObject::connect(dlg, &LauncherDialog::sessionFinished, v.timings,
                         [shared](const QString&) { shared->reload(); });
        dlg->show();
    });
    // Re-tune: the cache's own choices on this machine's GPUs; the run's session logs then show
    // in this view and in Compare devices, one op per GPU.
    QObject::connect(v.timings, &TimingsPanel::retuneRequested, w.hostWidget(), [&w, v, shared] {
        auto* dlg = new RetuneDialog(w.openedRoot(), w.jobs(), w.hostWidget());
        dlg->setAttribute(Qt::WA_DeleteOnClose);
        QObject::connect(dlg, &RetuneDialog::finishedRun, v.timings, [shared] { shared->reload(); });
        dlg->show();
    });
    // Tune menu: act on the artifact the inspector shows (C++/CUDA source: recompile; a Python
    // module of the cache: re-benchmark).
    auto* menu = w.addFeatureMenu(QObject::tr("&Tune"));
    v.menu = menu;
    auto* launch = menu->addAction(QObject::tr("New tuning session…"));
    auto* retune = menu->addAction(QObject::tr("Re-tune on this machine…"));
    auto* recompile = menu->addAction(QObject::tr("Recompile selected source…"));
    auto* rebench = menu->addAction(QObject::tr("Re-benchmark selected module…"));
    recompile->setEnabled(false);
    rebench->setEnabled(false);
    auto selected = std::make_shared<QString>();
    w.onInspectionShown(menu, [=](const QString& path) {
        *selected = path;
        const QString suffix = QFileInfo(path).suffix();
        recompile->setEnabled(suffix == QLatin1String("cpp") || suffix == QLatin1String("cu"));
        rebench->setEnabled(suffix == QLatin1String("py"));
    });
    QObject::connect(launch, &QAction::triggered, v.timings, &TimingsPanel::launchRequested);
    QObject::connect(retune, &QAction::triggered, v.timings, &TimingsPanel::retuneRequested);
    QObject::connect(recompile, &QAction::triggered, w.hostWidget(), [&w, selected] {
        auto* dlg = new RecompileDialog(*selected, w.jobs(), w.hostWidget());
        dlg->setAttribute(Qt::WA_DeleteOnClose);
        dlg->show();
    });
    QObject::connect(rebench, &QAction::triggered, w.hostWidget(), [&w, selected] {
        auto* dlg = new RebenchDialog(*selected, w.currentRoot(), w.jobs(), w.hostWidget());
        dlg->setAttribute(Qt::WA_DeleteOnClose);
        dlg->show();
    });
    return v;
}

}  // namespace kiln::ui
