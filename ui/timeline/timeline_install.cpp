#include "ui/timeline/timeline_install.hpp"

#include <QStatusBar>

#include "trace/compile_timeline.hpp"
#include "ui/browser/cache_browser.hpp"
#include "ui/common/view_host.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/timeline/timeline_panel.hpp"

namespace kiln::ui {

TimelinePanel* installTimelineView(ViewHost& w) {
    auto* panel = new TimelinePanel(w.jobs());
    w.addPanel(panel, QObject::tr("Compile timeline"));
    w.onRootChanged(panel, [panel, &w](const QString& root) { panel->loadRoot(root, w.openedRoot()); });
    if (!w.currentRoot().isEmpty()) panel->loadRoot(w.currentRoot(), w.openedRoot());
    QObject::connect(panel, &TimelinePanel::keyActivated, w.hostWidget(), [&w](const QString& key) {
        const auto dir = trace::key_dir_in_root(w.currentRoot().toStdString(), key.toStdString());
        if (!dir.empty() && w.browser()->selectPath(QString::fromStdString(dir.string()))) w.showCacheTab();
        else w.showStatusMessage(QObject::tr("%1 is not in this cache (evicted, or another machine's)").arg(key), 6000);
    });
    return panel;
}

}  // namespace kiln::ui
