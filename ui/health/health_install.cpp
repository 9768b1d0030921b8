#include "ui/health/health_install.hpp"

#include <QTabWidget>

#include "ui/browser/cache_browser.hpp"
#include "ui/common/view_host.hpp"
#include "ui/health/health_panel.hpp"

namespace kiln::ui {

HealthPanel* installHealthView(ViewHost& w) {
    auto* panel = new HealthPanel(w.jobs());
    panel->setScanHealth(w.scanHealth());  // the Overview's count and this view: one check of the scan
    w.addPanel(panel, QObject::tr("Health"));
    // The root's scan is the window's: the check waits for it instead of walking the root itself, and is
    // the one the Overview counts.
    w.onRootChanged(panel, [panel](const QString& root) { panel->setRootQuietly(root); });
    w.onCacheScanned(panel, [panel](std::shared_ptr<const CacheTree> tree) { panel->checkTree(std::move(tree)); });
    if (!w.currentRoot().isEmpty()) panel->setRoot(w.currentRoot());
    QObject::connect(panel, &HealthPanel::entrySelected, w.hostWidget(), [&w](const QString& path) {
        if (w.browser()->selectPath(path)) w.showCacheTab();
    });
    QObject::connect(panel, &HealthPanel::cacheChanged, w.hostWidget(), [&w] { w.rescan(); });
    return panel;
}

}  // namespace kiln::ui
