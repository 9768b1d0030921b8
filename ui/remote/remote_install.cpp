#include "ui/remote/remote_install.hpp"

#include <QDockWidget>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>

#include <memory>

#include "ui/common/view_host.hpp"
#include "ui/inspector/inspector_widget.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/remote/remote_connect_dialog.hpp"
#include "ui/remote/remote_inspect.hpp"
#include "ui/remote/remote_panel.hpp"
#include "util/temp_cleanup.hpp"

namespace kiln::ui {

namespace {
// Where remote pickles are written to be read like local files: made at the first entry opened (not
// at start, where an interrupted GUI left an empty /tmp/Kiln-XXXXXX behind), removed with the window,
// or by TempCleanup's handler when a signal ends the GUI.
struct RemoteScratch {
    std::unique_ptr<QTemporaryDir> dir;
    TempCleanup cleanup;
    const QTemporaryDir& get() {
        if (!dir) {
            dir = std::make_unique<QTemporaryDir>();
            if (dir->isValid()) cleanup = TempCleanup(dir->path().toStdString());
        }
        return *dir;
    }
    ~RemoteScratch() {
        dir.reset();
        cleanup.release();
    }
};
}  // namespace

RemotePanel* installRemoteSource(ViewHost& w) {
    auto* panel = new RemotePanel(w.jobs());
    w.addPanel(panel, QObject::tr("Redis"), Qt::LeftDockWidgetArea);
    // Hidden until Redis is configured (TORCHINDUCTOR_REDIS_URL, or a server connected to before);
    // View › Redis shows it, and the window's saved state keeps the user's choice.
    const bool configured = !RemoteConnectDialog::urlFromEnvironment().isEmpty() ||
                            !QSettings().value(QStringLiteral("remote/lastUrl")).toString().isEmpty();
    if (auto* dock = qobject_cast<QDockWidget*>(panel->parentWidget())) dock->setVisible(configured);
    auto scratch = std::make_shared<RemoteScratch>();
    QObject::connect(
        panel, &RemotePanel::entryActivated, w.hostWidget(), [&w, scratch](const QString& url, const QString& key) {
            const QTemporaryDir& made = scratch->get();
            if (!made.isValid()) {
                w.showStatusMessage(
                    QObject::tr("No temporary directory for remote entries: %1").arg(made.errorString()), 5000);
                return;
            }
            const QString dir = made.path();
            w.inspector()->showMessage(QObject::tr("<p>Fetching %1 …</p>").arg(key.toHtmlEscaped()));
            w.showCacheTab();  // the Cache tab holds the inspector
            // The "inspect" channel: a newer local or remote selection drops this result.
            w.jobs()->start(
                QStringLiteral("inspect"), QObject::tr("Decoding %1").arg(key),
                [url, key, dir](JobControl& ctl) { return inspectRemoteEntry(url, key, dir, ctl); },
                [&w](Inspection ins) { w.inspector()->showInspection(ins); });
        });
    return panel;
}

}  // namespace kiln::ui
