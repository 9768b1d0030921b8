#include "timings_install.hpp"

#include <QTabWidget>

#include "autotune_compare_panel.hpp"
#include "browser/cache_browser.hpp"
#include "launcher_dialog.hpp"
#include "main_window.hpp"
#include "timings_compile_panel.hpp"
#include "timings_panel.hpp"

namespace kiln::ui {

AutotuneViews installAutotuneViews(MainWindow& w) {
    AutotuneViews v;
    v.timings = new TimingsPanel(w.jobs());
    v.compare = new AutotuneComparePanel(w.jobs());
    v.compileTimes = new TimingsCompilePanel(w.jobs());
    w.addPanel(v.timings, QObject::tr("Autotune"));
    w.addPanel(v.compare, QObject::tr("Compare devices"));
    w.addPanel(v.compileTimes, QObject::tr("Compile times"));
    auto follow = [v](const QString& root) {
        v.timings->load({root});
        v.compileTimes->loadRoot(root);
    };
    QObject::connect(&w, &MainWindow::rootChanged, v.timings, follow);
    if (!w.currentRoot().isEmpty()) follow(w.currentRoot());
    // A bar or row whose kernel module is in the cache: show it in the browser.
    QObject::connect(v.timings, &TimingsPanel::moduleSelected, &w, [&w](const QString& path) {
        if (w.browser()->selectPath(path)) w.workspace()->setCurrentIndex(0);
    });
    QObject::connect(v.timings, &TimingsPanel::launchRequested, &w, [&w, v] {
        auto* dlg = new LauncherDialog(w.currentRoot(), &w);
        dlg->setAttribute(Qt::WA_DeleteOnClose);
        QObject::connect(dlg, &LauncherDialog::sessionFinished, v.timings, [&w, v](const QString&) { v.timings->load({w.currentRoot()}); });
        dlg->show();
    });
    return v;
}

}  // namespace kiln::ui
