#include "health/health_install.hpp"

#include <QTabWidget>

#include "browser/cache_browser.hpp"
#include "health/health_panel.hpp"
#include "shell/main_window.hpp"

namespace kiln::ui {

HealthPanel* installHealthView(MainWindow& w) {
    auto* panel = new HealthPanel(w.jobs());
    panel->setScanHealth(w.scanHealth());  // the Overview's count and this view: one check of the scan
    w.addPanel(panel, QObject::tr("Health"));
    // The root's scan is the window's: the check waits for it instead of walking the root itself, and is
    // the one the Overview counts.
    QObject::connect(&w, &MainWindow::rootChanged, panel,
                     [panel](const QString& root) { panel->setRootQuietly(root); });
    QObject::connect(&w, &MainWindow::cacheScanned, panel, &HealthPanel::checkTree);
    if (!w.currentRoot().isEmpty()) panel->setRoot(w.currentRoot());
    QObject::connect(panel, &HealthPanel::entrySelected, &w, [&w](const QString& path) {
        if (w.browser()->selectPath(path)) w.workspace()->setCurrentIndex(0);
    });
    QObject::connect(panel, &HealthPanel::cacheChanged, &w, &MainWindow::rescan);
    return panel;
}

}  // namespace kiln::ui
