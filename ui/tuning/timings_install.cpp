#include "ui/tuning/timings_install.hpp"

#include <QMenu>
#include <QMenuBar>
#include <QTabWidget>

#include <memory>

#include "ui/browser/cache_browser.hpp"
#include "ui/common/view_host.hpp"
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
    // The Tune menu: the shell adds what runs for minutes (sessions, re-tunes, recompiles,
    // re-benchmarks: ui/runs), other tools their entries (Compare ranks…).
    v.menu = w.addFeatureMenu(QObject::tr("&Tune"));
    return v;
}

}  // namespace kiln::ui
