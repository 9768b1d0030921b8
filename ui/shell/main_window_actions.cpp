// The main window's menus, toolbar, shortcuts and dialogs (kept apart from its layout and jobs).
#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QKeySequence>
#include <QMenuBar>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>

#include "ui/browser/cache_browser.hpp"
#include "ui/diff/diff_view.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/overview/overview_panel.hpp"
#include "ui/shell/about_dialog.hpp"
#include "ui/shell/main_window.hpp"
#include "ui/shell/root_resolver.hpp"
#include "ui/shell/settings_dialog.hpp"

namespace kiln::ui {

void MainWindow::buildActions() {
    auto* st = style();
    auto* open = new QAction(st->standardIcon(QStyle::SP_DirOpenIcon), tr("&Open Cache…"), this);
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open an Inductor or Triton cache folder (Ctrl+O)"));
    connect(open, &QAction::triggered, this, &MainWindow::openDialog);

    auto* openBlob = new QAction(tr("Open Mega-Cache &Blob…"), this);
    openBlob->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    openBlob->setToolTip(tr("Open a torch.compiler.save_cache_artifacts() blob as the cache it would load"));
    connect(openBlob, &QAction::triggered, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Open a Mega-Cache blob"), root_);
        if (!file.isEmpty()) openRoot(file);
    });

    auto* reload = new QAction(st->standardIcon(QStyle::SP_BrowserReload), tr("&Rescan"), this);
    reload->setShortcut(QKeySequence::Refresh);
    connect(reload, &QAction::triggered, this, &MainWindow::rescan);

    auto* openDefault = new QAction(tr("Open Inductor's &Default Cache"), this);
    connect(openDefault, &QAction::triggered, this, [this] { openRoot(inductorDefaultRoot()); });
    auto* openSample = new QAction(tr("Open the &Sample Cache"), this);
    openSample->setEnabled(!sampleCacheRoot().isEmpty());
    connect(openSample, &QAction::triggered, this, [this] { openRoot(sampleCacheRoot(), true); });

    auto* quit = new QAction(tr("&Quit"), this);
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    auto* find = new QAction(tr("&Filter…"), this);
    find->setShortcut(QKeySequence::Find);
    connect(find, &QAction::triggered, browser_, &CacheBrowser::focusFilter);

    auto* cancel = new QAction(st->standardIcon(QStyle::SP_BrowserStop), tr("&Cancel Running Work"), this);
    cancel->setShortcut(Qt::Key_Escape);
    connect(cancel, &QAction::triggered, jobs_, &JobRunner::cancelAll);

    auto* diff = new QAction(tr("&Diff Entries"), this);
    diff->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    connect(diff, &QAction::triggered, this, [this] { workspace_->setCurrentWidget(diff_); });
    auto* overviewTab = new QAction(tr("&Overview"), this);
    overviewTab->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    connect(overviewTab, &QAction::triggered, this, [this] { workspace_->setCurrentWidget(overview_); });
    auto* cacheTab = new QAction(tr("&Cache Browser"), this);
    cacheTab->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
    connect(cacheTab, &QAction::triggered, this, &MainWindow::showCacheTab);
    // Ctrl+PgDown / Ctrl+PgUp: the next and previous workspace tab, wherever the focus is.
    auto* nextTab = new QAction(tr("&Next View"), this);
    nextTab->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageDown));
    connect(nextTab, &QAction::triggered, this,
            [this] { workspace_->setCurrentIndex((workspace_->currentIndex() + 1) % workspace_->count()); });
    auto* prevTab = new QAction(tr("&Previous View"), this);
    prevTab->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageUp));
    connect(prevTab, &QAction::triggered, this, [this] {
        workspace_->setCurrentIndex((workspace_->currentIndex() + workspace_->count() - 1) % workspace_->count());
    });

    auto* prefs = new QAction(tr("&Settings…"), this);
    prefs->setShortcut(QKeySequence::Preferences);
    prefs->setMenuRole(QAction::PreferencesRole);
    connect(prefs, &QAction::triggered, this, &MainWindow::showSettings);

    auto* about = new QAction(tr("&About Kiln"), this);
    connect(about, &QAction::triggered, this, [this] { showAboutDialog(this); });

    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(open);
    file->addAction(openBlob);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addAction(openDefault);
    file->addAction(openSample);
    file->addSeparator();
    file->addAction(reload);
    file->addSeparator();
    file->addAction(prefs);
    file->addAction(quit);
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(find);
    edit->addAction(cancel);
    viewMenu_ = menuBar()->addMenu(tr("&View"));
    viewMenu_->addAction(overviewTab);
    viewMenu_->addAction(cacheTab);
    viewMenu_->addAction(diff);
    viewMenu_->addAction(nextTab);
    viewMenu_->addAction(prevTab);
    viewMenu_->addSeparator();
    helpMenu_ = menuBar()->addMenu(tr("&Help"));
    helpMenu_->addAction(about);

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(open);
    bar->addAction(reload);
    bar->addAction(cancel);
    addAction(cancel);  // Esc works wherever the focus is
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList roots = settings_.recentRoots();
    for (int i = 0; i < roots.size(); ++i) {
        const QString root = roots[i];
        QAction* a = recentMenu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(root));
        connect(a, &QAction::triggered, this, [this, root] { openRoot(root); });
    }
    if (!roots.isEmpty()) {
        recentMenu_->addSeparator();
        recentMenu_->addAction(tr("Clear"), this, [this] {
            settings_.clearRecentRoots();
            rebuildRecentMenu();
        });
    }
    recentMenu_->setEnabled(!roots.isEmpty());
}

void MainWindow::openDialog() {
    const QString start = root_.isEmpty() ? inductorDefaultRoot() : root_;
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a cache folder"), start);
    if (!dir.isEmpty()) openRoot(dir);
}

void MainWindow::showSettings() {
    SettingsDialog dlg(settings_, this);
    if (dlg.exec() == QDialog::Accepted) applySettings();
}

}  // namespace kiln::ui
