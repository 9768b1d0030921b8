#include "ui/shell/tune_runs_install.hpp"

#include <QFileInfo>
#include <QLayout>
#include <QMenu>

#include <memory>

#include "ui/common/view_host.hpp"
#include "ui/runs/handback_bar.hpp"
#include "ui/runs/launcher_dialog.hpp"
#include "ui/runs/rebench_dialog.hpp"
#include "ui/runs/recompile_dialog.hpp"
#include "ui/runs/retune_dialog.hpp"
#include "ui/tuning/root_timings.hpp"
#include "ui/tuning/timings_install.hpp"
#include "ui/tuning/timings_panel.hpp"

namespace kiln::ui {

void installTuneRuns(ViewHost& w, const AutotuneViews& v) {
    // A finished re-tune handed to torch (issue 31), below the autotune results.
    auto* handback = new HandbackBar(v.timings);
    if (auto* lay = v.timings->layout()) lay->addWidget(handback);
    w.onRootChanged(handback, [handback](const QString& root) { handback->setRoot(root); });
    handback->setRoot(w.currentRoot());
    RootTimings* shared = w.rootTimings();
    QObject::connect(v.timings, &TimingsPanel::launchRequested, w.hostWidget(), [&w, v, shared] {
        auto* dlg = new LauncherDialog(w.currentRoot(), w.hostWidget());
        dlg->setAttribute(Qt::WA_DeleteOnClose);
        QObject::connect(dlg, &LauncherDialog::sessionFinished, v.timings,
                         [shared](const QString&) { shared->reload(); });
        dlg->show();
    });
    // Re-tune: the cache's own choices on this machine's GPUs; the run's session logs then show
    // in the Autotune view and in Compare devices, one op per GPU.
    QObject::connect(v.timings, &TimingsPanel::retuneRequested, w.hostWidget(), [&w, v, shared] {
        auto* dlg = new RetuneDialog(w.openedRoot(), w.jobs(), w.hostWidget());
        dlg->setAttribute(Qt::WA_DeleteOnClose);
        QObject::connect(dlg, &RetuneDialog::finishedRun, v.timings, [shared] { shared->reload(); });
        dlg->show();
    });
    // Tune menu: act on the artifact the inspector shows (C++/CUDA source: recompile; a Python
    // module of the cache: re-benchmark).
    QMenu* menu = v.menu;
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
}

}  // namespace kiln::ui
