#include "timeline/timeline_install.hpp"

#include <QStatusBar>

#include "browser/cache_browser.hpp"
#include "inductor/compile_timeline.hpp"
#include "jobs/job_runner.hpp"
#include "shell/main_window.hpp"
#include "timeline/timeline_panel.hpp"

namespace kiln::ui {

TimelinePanel* installTimelineView(MainWindow& w) {
    auto* panel = new TimelinePanel(w.jobs());
    w.addPanel(panel, QObject::tr("Compile timeline"));
    QObject::connect(&w, &MainWindow::rootChanged, panel, &TimelinePanel::loadRoot);
    if (!w.currentRoot().isEmpty()) panel->loadRoot(w.currentRoot());
    QObject::connect(panel, &TimelinePanel::keyActivated, &w, [&w](const QString& key) {
        const auto dir = inductor::key_dir_in_root(w.currentRoot().toStdString(), key.toStdString());
        if (!dir.empty() && w.browser()->selectPath(QString::fromStdString(dir.string()))) w.showCacheTab();
        else
            w.statusBar()->showMessage(QObject::tr("%1 is not in this cache (evicted, or another machine's)").arg(key),
                                       6000);
    });
    return panel;
}

}  // namespace kiln::ui
