#include "ui/shell/main_window.hpp"

#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMetaObject>
#include <QMimeData>
#include <QScreen>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QUrl>
#include <QVBoxLayout>

#include <cstdio>
#include <utility>

#include "bundle/temp_root.hpp"
#include "frontend/open_cache.hpp"
#include "health/seen_entries.hpp"
#include "inductor/evict_needs.hpp"
#include "inductor/graph_entry.hpp"
#include "overview/overview.hpp"
#include "portability/seen_keys.hpp"
#include "timings/compile_times.hpp"
#include "trace/graph_names.hpp"
#include "ui/browser/cache_browser.hpp"
#include "ui/browser/cache_tree_model.hpp"
#include "ui/browser/cache_watcher.hpp"
#include "ui/browser/entry_labels.hpp"
#include "ui/browser/scan_job.hpp"
#include "ui/diff/diff_view.hpp"
#include "ui/health/scan_health.hpp"
#include "ui/inspector/inspection.hpp"
#include "ui/inspector/inspector_widget.hpp"
#include "ui/inspector/summary_html.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/jobs/release_memory.hpp"
#include "ui/overview/overview_panel.hpp"
#include "ui/shell/graph_read.hpp"
#include "ui/shell/root_resolver.hpp"
#include "ui/status/status_panel.hpp"
#include "ui/theme/palette.hpp"
#include "ui/tuning/root_timings.hpp"

namespace kiln::ui {

struct KernelsAwaitingTimings {
    InspectRequest request;
    Inspection shown;
};

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      jobs_(new JobRunner(this)),
      scanHealth_(new ScanHealth(jobs_, this)),
      rootTimings_(new RootTimings(jobs_, this)),
      watcher_(new CacheWatcher(this)),
      browser_(new CacheBrowser(this)),
      inspector_(new InspectorWidget(jobs_, this)),
      diff_(new DiffView(jobs_, this)),
      status_(new StatusPanel(this)),
      overview_(new OverviewPanel(jobs_, this, scanHealth_, [this] { rootTimings_->request(); })),
      workspace_(new QTabWidget(this)),
      banner_(new QLabel(this)) {
    setWindowTitle(QStringLiteral("Kiln"));
    setAcceptDrops(true);
    connect(this, &MainWindow::cacheOpened, this, &MainWindow::onCacheOpened);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(browser_);
    split->addWidget(inspector_);
    split->setStretchFactor(1, 2);
    split->setSizes({640, 640});  // room for graph entries' readable names
    cacheTab_ = split;
    workspace_->addTab(overview_, tr("Overview"));
    workspace_->addTab(split, tr("Cache"));
    workspace_->addTab(diff_, tr("Diff"));
    workspace_->setDocumentMode(true);

    banner_->setObjectName(QStringLiteral("rootBanner"));
    banner_->setVisible(false);
    banner_->setWordWrap(true);
    banner_->setContentsMargins(8, 6, 8, 6);
    // The palette's own colours, so the banner reads in dark mode too.
    banner_->setStyleSheet(
        QStringLiteral("background:palette(tool-tip-base);color:palette(tool-tip-text);"
                       "border-bottom:1px solid palette(mid);"));
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(banner_);
    layout->addWidget(workspace_);
    setCentralWidget(central);
    statusBar()->addPermanentWidget(status_, 1);

    connect(jobs_, &JobRunner::progress, status_, &StatusPanel::setProgress);
    connect(jobs_, &JobRunner::busyChanged, status_, &StatusPanel::setBusy);
    connect(status_, &StatusPanel::cancelRequested, jobs_, &JobRunner::cancelAll);
    connect(browser_, &CacheBrowser::currentChanged, this, &MainWindow::inspect);
    connect(browser_, &CacheBrowser::diffRequested, this, [this](const QString& path) {
        diff_->setSideA(path);
        workspace_->setCurrentWidget(diff_);
    });
    connect(inspector_, &InspectorWidget::linkActivated, this, &MainWindow::onLink);
    connect(overview_, &OverviewPanel::linkActivated, this, &MainWindow::onLink);
    diff_->setSelectionProvider([this] { return browser_->currentPath(); });
    connect(watcher_, &CacheWatcher::changed, this, &MainWindow::rescan);
    connect(rootTimings_, &RootTimings::loaded, this, &MainWindow::joinKernelsToTimings);
    // The Overview's autotuned ops are the shared read's (each read, a re-read after a tuning session too).
    connect(rootTimings_, &RootTimings::opsRead, overview_,
            [this](const std::shared_ptr<const RootTimingsOps>& r) { overview_->setOps(r->root, r->ops); });
    // The first screen in: the "used by graph" marks, another read of every entry, may run now.
    connect(overview_, &OverviewPanel::computed, this, [this] { firstScreenIn_->open(); });

    buildActions();
    applySettings();
    resize(1280, 800);
}

void MainWindow::restoreWindow() {
    if (!settings_.windowGeometry().isEmpty() && restoreGeometry(settings_.windowGeometry())) {
        restoreState(settings_.windowState());
        return;
    }
    // First start: most of the screen, centred.
    if (QScreen* s = screen()) {
        const QRect avail = s->availableGeometry();
        const QSize size(avail.width() * 85 / 100, avail.height() * 85 / 100);
        setGeometry(QRect(avail.center() - QPoint(size.width() / 2, size.height() / 2), size));
    }
}

QMenu* MainWindow::addFeatureMenu(const QString& title) {
    auto* menu = new QMenu(title, this);
    menuBar()->insertMenu(helpMenu_->menuAction(), menu);
    return menu;
}

bool MainWindow::showView(const QString& title) {
    for (int i = 0; i < workspace_->count(); ++i) {
        if (QString(workspace_->tabText(i)).remove(QLatin1Char('&')) != title) continue;
        workspace_->setCurrentIndex(i);
        return true;
    }
    return false;
}

void MainWindow::showCacheTab() { workspace_->setCurrentWidget(cacheTab_); }

void MainWindow::showStatusMessage(const QString& text, int timeoutMs) { statusBar()->showMessage(text, timeoutMs); }

void MainWindow::onRootChanged(QObject* context, std::function<void(const QString&)> f) {
    connect(this, &MainWindow::rootChanged, context, std::move(f));
}

void MainWindow::onCacheScanned(QObject* context, std::function<void(std::shared_ptr<const CacheTree>)> f) {
    connect(this, &MainWindow::cacheScanned, context, std::move(f));
}

void MainWindow::onGraphEntriesRead(
    QObject* context,
    std::function<void(std::shared_ptr<const CacheTree>, std::shared_ptr<const timings::CompileTimes>)> f) {
    connect(this, &MainWindow::graphEntriesRead, context, std::move(f));
}

void MainWindow::onInspectionShown(QObject* context, std::function<void(const QString&)> f) {
    connect(this, &MainWindow::inspectionShown, context, std::move(f));
}

void MainWindow::onAutotuneOpRequested(QObject* context, std::function<void(int)> f) {
    connect(this, &MainWindow::autotuneOpRequested, context, std::move(f));
}

MainWindow::~MainWindow() = default;

void MainWindow::addPanel(QWidget* panel, const QString& title, Qt::DockWidgetArea area) {
    if (area == Qt::NoDockWidgetArea) {
        workspace_->addTab(panel, title);
        return;
    }
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(QStringLiteral("dock_") + title);  // saveState() needs a name
    dock->setWidget(panel);
    addDockWidget(area, dock);
    viewMenu_->addAction(dock->toggleViewAction());
}

void MainWindow::applySettings() {
    applyTheme(settings_.theme());
    inspector_->setSourceFontSize(settings_.sourceFontSize());
    diff_->setSourceFontSize(settings_.sourceFontSize());
    watcher_->setCoalesceMs(settings_.coalesceMs());
    watcher_->setEnabled(settings_.watchForChanges());
}

void MainWindow::openStartupRoot(const QString& commandLineRoot) {
    const RootChoice choice = chooseStartupRoot(commandLineRoot);
    if (choice.path.isEmpty()) {
        statusBar()->showMessage(choice.reason);
        overview_->showNoCache(choice.reason);
        inspector_->showMessage(tr("<h3>No cache to show</h3><p>%1</p><p>Open one with File › Open (Ctrl+O) or drop a "
                                   "folder here.</p>")
                                    .arg(choice.reason.toHtmlEscaped()));
        return;
    }
    openRoot(choice.path, choice.isSample);
    statusBar()->showMessage(choice.reason, 8000);
}

void MainWindow::openRoot(const QString& root, bool isSample) {
    openError_.clear();
    const QString path = QDir::cleanPath(QFileInfo(root).absoluteFilePath());
    if (path.contains(QChar::ReplacementCharacter) && !QFileInfo::exists(path)) {
        // Bytes that are not UTF-8 in the path were decoded as U+FFFD: that name does not exist.
        openError_ = tr("cannot open %1: the path is not valid UTF-8, and the window names files in UTF-8 "
                        "(kiln-cli reads such paths; or rename the folder)")
                         .arg(path);
        statusBar()->showMessage(openError_);
        inspector_->showMessage(tr("<h3>Cannot open this cache</h3><p>%1</p>").arg(openError_.toHtmlEscaped()));
        return;
    }
    // Opened as kiln-cli opens it (frontend::open_cache: a directory held open, a blob unpacked), on the
    // "scan" channel, off the UI thread: opening something else meanwhile drops this one.
    jobs_->start(
        QStringLiteral("scan"), tr("Opening %1").arg(QFileInfo(path).fileName()),
        [path, isSample](JobControl&) { return openCacheOffUiThread(path, isSample); },
        [this](OpenedCacheOutcome opened) { emit cacheOpened(opened); });
}

void MainWindow::onCacheOpened(const OpenedCacheOutcome& cache) {
    if (!cache.opened) {
        openError_ = tr("cannot open %1: %2").arg(cache.path, cache.error);
        statusBar()->showMessage(tr("Cannot open %1: %2").arg(cache.path, cache.error));
        inspector_->showMessage(
            tr("<h3>Cannot open %1</h3><p>%2</p>").arg(cache.path.toHtmlEscaped(), cache.error.toHtmlEscaped()));
        if (root_.isEmpty()) overview_->showError(openError_);
        return;
    }
    if (!cache.opened->is_blob()) {
        showRoot(cache.path, cache.isSample, cache.opened, QString());
        return;
    }
    showRoot(QString::fromStdString(cache.opened->root.string()), false, cache.opened, cache.path);
    statusBar()->showMessage(
        tr("Mega-Cache blob %1, shown as the cache load_cache_artifacts would write").arg(cache.path), 8000);
}

void MainWindow::showRoot(const QString& root, bool isSample, std::shared_ptr<const bundle::RootOrBlob> opened,
                          const QString& blobPath) {
    root_ = root;
    opened_ = std::move(opened);  // the previous blob's temporary root goes (once no job holds it)
    blobPath_ = blobPath;
    isSample_ = isSample;
    banner_->setText(tr("<b>Sample cache.</b> No Inductor cache was found at <code>%1</code>, so Kiln shows the small "
                        "real cache bundled with it. Open your own with File › Open.")
                         .arg(inductorDefaultRoot().toHtmlEscaped()));
    if (!blobPath.isEmpty())
        banner_->setText(tr("<b>Mega-Cache blob</b> <code>%1</code>, shown as the cache "
                            "<code>torch.compiler.load_cache_artifacts()</code> would write from it.")
                             .arg(blobPath.toHtmlEscaped()));
    banner_->setVisible(isSample || !blobPath.isEmpty());
    const QString shown = blobPath.isEmpty() ? root_ : blobPath;
    if (!isSample) {
        settings_.addRecentRoot(shown);
        rebuildRecentMenu();
    }
    setWindowTitle(blobPath.isEmpty() ? QStringLiteral("Kiln — %1").arg(root_)
                                      : QStringLiteral("Kiln — Mega-Cache blob %1").arg(blobPath));
    watcher_->clear();
    awaitingTimings_.reset();
    browser_->setTree(nullptr);
    diff_->setRoot(root_);
    // The scan first (the pool runs jobs in the order they come): the Overview and the browser wait on
    // it, the views that follow rootChanged do not.
    auto counters = std::make_shared<ScanCounters>();
    scanHealth_->clear();
    firstScreenIn_->open();  // the last root's waits end (its jobs are cancelled)
    firstScreenIn_ = std::make_shared<Gate>();
    rootTimings_->setRoot(root_, opened_, /*scanComing=*/true);  // before the views that ask for its read
    overview_->load(root_, counters, blobPath_);
    startScan(counters);
    emit rootChanged(root_);
}

void MainWindow::rescan() { startScan(nullptr); }

void MainWindow::startScan(std::shared_ptr<ScanCounters> counters) {
    if (root_.isEmpty() || !opened_) return;
    // The graph entries are read as soon as the walk has passed them, beside the rest of it.
    jobs_->cancel(QStringLiteral("graphs"));
    auto read = std::make_shared<GraphReadState>();
    graphRead_ = read;
    ScanHooks hooks;
    hooks.graphDirs = [this, read, opened = opened_](std::span<const inductor::Artifact> artifacts) {
        auto files = std::make_shared<const inductor::GraphEntryFiles>(inductor::graph_entry_files(artifacts));
        QMetaObject::invokeMethod(
            this,
            [this, read, opened, files] {
                if (graphRead_ == read) startGraphRead(read, opened, files);
            },
            Qt::QueuedConnection);
    };
    hooks.walked = [read](const inductor::ScanResult& scan) { read->seen->know(scan); };
    jobs_->start(
        QStringLiteral("scan"), tr("Scanning %1").arg(QFileInfo(blobPath_.isEmpty() ? root_ : blobPath_).fileName()),
        [opened = opened_, counters, read, hooks](JobControl& ctl) {
            ScanOutcome out = runScan(opened, ctl, counters, hooks);
            read->scanEnded(out.tree);  // the read waits for it, not for the UI thread
            return out;
        },
        [this, read](ScanOutcome out) {
            if (!out.error.isEmpty()) {
                statusBar()->showMessage(out.error);
                if (!out.tree && !overview_->partial()) overview_->showError(out.error);
                if (!out.tree) {
                    rootTimings_->setScan(nullptr);  // its read walks the root instead
                    openError_ = tr("cannot scan %1: %2").arg(blobPath_.isEmpty() ? root_ : blobPath_, out.error);
                    return;
                }
            }
            if (!out.tree || out.tree->root != root_) return;  // a scan of a root no longer open
            browser_->setTree(out.tree);
            // The check takes the graph entries as the window's one read of them sees them.
            scanHealth_->setTree(out.tree, read->seen);  // before the views that ask for its check
            // The timing files from the scan, not a second walk; its marks after the first screen.
            rootTimings_->setScan(out.tree, firstScreenIn_);
            overview_->setTree(out.tree);
            if (!read->started) startGraphRead(read, opened_, nullptr);  // the walk handed no graph dirs over
            status_->setTotals(*out.tree);
            if (blobPath_.isEmpty()) watcher_->watch(*out.tree);  // a blob's unpacked copy never changes
            statusBar()->showMessage(blobPath_.isEmpty()
                                         ? tr("Scanned in %1 ms").arg(out.elapsedMs)
                                         : tr("Mega-Cache blob %1: scanned in %2 ms").arg(blobPath_).arg(out.elapsedMs),
                                     4000);
            if (!pendingSelect_.isEmpty()) {
                // --select as typed: absolute, or relative to the root or the current folder; one that
                // matches nothing is said (status bar and stderr), never dropped in silence.
                const QString given = std::exchange(pendingSelect_, QString());
                const QString found = browser_->findArtifact(given);
                if (found.isEmpty() || !browser_->selectPath(found)) {
                    const QString why = tr("--select %1: nothing in %2 is at that path (give it absolute, or "
                                           "relative to the cache root or the current folder)")
                                            .arg(given, blobPath_.isEmpty() ? root_ : blobPath_);
                    statusBar()->showMessage(why);
                    std::fprintf(stderr, "kiln: %s\n", qPrintable(why));
                }
            }
            emit cacheScanned(out.tree);
        });
}

void MainWindow::startGraphRead(std::shared_ptr<GraphReadState> read, std::shared_ptr<const bundle::RootOrBlob> opened,
                                std::shared_ptr<const inductor::GraphEntryFiles> files) {
    read->started = true;
    // The check waits for `seen` to close: when the read ends, or when the job is dropped unrun (the
    // last copy of the closure goes).
    struct CloseWhenDone {
        explicit CloseWhenDone(std::shared_ptr<health::SeenEntries> s) : seen(std::move(s)) {}
        CloseWhenDone(const CloseWhenDone&) = delete;  // one of them: a copy's end would close it early
        CloseWhenDone& operator=(const CloseWhenDone&) = delete;
        ~CloseWhenDone() { seen->close(); }
        std::shared_ptr<health::SeenEntries> seen;
    };
    auto closer = std::make_shared<const CloseWhenDone>(read->seen);
    jobs_->start(
        QStringLiteral("graphs"), tr("Reading graph entries"),
        [this, read, opened, files, closer](JobControl& ctl) {
            // `this` outlives the job (the window's runner waits for its jobs).
            return readGraphEntries(
                *read, opened->opened(), files.get(), ctl,
                [this](std::shared_ptr<const CacheTree> tree, std::shared_ptr<const inductor::EntryNeeds> needs,
                       std::shared_ptr<const portability::SeenKeys> keys) {
                    QMetaObject::invokeMethod(
                        this,
                        [this, tree, needs, keys] {
                            if (tree->root == root_) overview_->setEntryNeeds(tree, needs, keys);
                        },
                        Qt::QueuedConnection);
                });
        },
        [this](GraphReadResult out) {
            if (!out.tree || out.tree->root != root_) return;
            overview_->setEntries(std::move(out.section));
            if (out.labels) browser_->model()->setEntryLabels(out.tree, out.labels);
            emit graphEntriesRead(out.tree, out.times);
        });
}

void MainWindow::inspect(const QString& path, const CacheNode& node) {
    awaitingTimings_.reset();
    if (node.kind == CacheNode::Kind::category) {
        jobs_->cancel(QStringLiteral("inspect"));
        inspector_->showMessage(
            tr("<h3>%1</h3><p>%2 files, %3.</p>").arg(node.name).arg(node.files).arg(formatBytes(node.bytes)));
        return;
    }
    InspectRequest req{path, node, root_, opened_, browser_->tree()};
    if (opened_ && opened_->is_blob())
        req.shownPath = QString::fromStdString(frontend::in_given_terms(*opened_, path.toStdString()));
    // The kernel join takes the root's timings as read once for the window, never its own walk.
    if (const auto timings = rootTimings_->result(); timings && timings->root == root_) req.timings = timings->set;
    inspector_->showMessage(
        tr("<p>Reading %1 …</p>").arg((req.shownPath.isEmpty() ? path : req.shownPath).toHtmlEscaped()));
    jobs_->start(
        QStringLiteral("inspect"), tr("Decoding %1").arg(QFileInfo(path).fileName()),
        [req](JobControl& ctl) { return inspectArtifact(req, ctl); },
        [this, req](Inspection ins) {
            inspector_->showInspection(ins);
            if (ins.kernelsAwaitTimings && req.root == root_) {
                // Joined again when the root's timings are in (now, if they came meanwhile).
                awaitingTimings_ = std::make_shared<const KernelsAwaitingTimings>(KernelsAwaitingTimings{req, ins});
                if (const auto timings = rootTimings_->result()) joinKernelsToTimings(timings);
                else rootTimings_->request();
            }
            emit inspectionShown(ins.path);
        });
}

void MainWindow::joinKernelsToTimings(const std::shared_ptr<const RootTimingsResult>& timings) {
    if (!awaitingTimings_ || !timings || timings->root != awaitingTimings_->request.root) return;
    auto waiting = std::exchange(awaitingTimings_, nullptr);
    InspectRequest req = waiting->request;
    req.timings = timings->set;
    // On the inspect channel: selecting something else meanwhile drops it.
    jobs_->start(
        QStringLiteral("inspect"), tr("Joining kernels of %1").arg(QFileInfo(req.path).fileName()),
        [req, waiting](JobControl&) { return std::make_pair(req.path, summaryHtml(req, waiting->shown)); },
        [this](std::pair<QString, QString> done) { inspector_->updateSummary(done.first, done.second); });
}

void MainWindow::onLink(const QUrl& url) {
    const QString target = QUrl::fromPercentEncoding(url.path().toUtf8());
    const QString scheme = url.scheme();
    if (scheme == QLatin1String("kiln-path")) {
        if (!browser_->selectPath(target)) statusBar()->showMessage(tr("%1 is not in this cache").arg(target), 5000);
        else showCacheTab();
    } else if (scheme == QLatin1String("kiln-category")) {
        if (auto c = inductor::category_from_name(target.toStdString()); c && browser_->selectCategory(*c))
            showCacheTab();
    } else if (scheme == QLatin1String("kiln-view")) {
        showView(target);
    } else if (scheme == QLatin1String("kiln-op")) {
        showView(tr("Autotune"));
        emit autotuneOpRequested(target.toInt());
    } else if (scheme == QLatin1String("kiln-action") && target == QLatin1String("open")) {
        openDialog();
    } else if (url.scheme() == QLatin1String("kiln-filter")) {
        browser_->setFilterText(target);
    }
}

void MainWindow::closeEvent(QCloseEvent* e) {
    settings_.saveWindow(saveGeometry(), saveState());
    jobs_->cancelAll();
    opened_.reset();  // a blob's temporary root goes with the window
    e->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    const auto urls = e->mimeData()->urls();
    // A folder or a file: whether it is a cache (a blob's header) is read when it is opened, off the UI
    // thread, and said there if not.
    if (urls.size() != 1 || !urls.front().isLocalFile()) return;
    const QFileInfo dropped(urls.front().toLocalFile());
    if (dropped.isDir() || dropped.isFile()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    const auto urls = e->mimeData()->urls();
    if (urls.size() == 1 && urls.front().isLocalFile()) openRoot(urls.front().toLocalFile());
}

}  // namespace kiln::ui
