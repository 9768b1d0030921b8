#pragma once
// The application's main window: a shell that owns the job runner, the cache browser, the
// inspector and the status bar, and gives other views a place to live (addPanel).
#include <QMainWindow>

#include <memory>

#include "ui/browser/cache_tree.hpp"
#include "ui/common/view_host.hpp"
#include "ui/shell/root_resolver.hpp"
#include "ui/shell/settings.hpp"
#include "util/gate.hpp"

class QLabel;
class QMenu;
class QSplitter;
class QTabWidget;

namespace kiln::bundle {
struct RootOrBlob;
}

namespace kiln::inductor {
struct GraphEntryFiles;
}

namespace kiln::health {
class SeenEntries;
}

namespace kiln::ui {

class CacheBrowser;
class CacheWatcher;
class DiffView;
class InspectorWidget;
class JobRunner;
class OverviewPanel;
class RootTimings;
class ScanHealth;
class StatusPanel;
struct ScanCounters;
struct GraphReadState;
struct Inspection;
struct KernelsAwaitingTimings;
struct RootTimingsResult;

class MainWindow : public QMainWindow, public ViewHost {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a cache root (rescans it), or a Mega-Cache blob file as the root load_cache_artifacts
    // would make of it (unpacked into a temporary root that lives while it is shown), through
    // frontend::open_cache on the JobRunner, off the UI thread (cacheOpened). `isSample` shows the
    // banner about the bundled sample cache.
    void openRoot(const QString& root, bool isSample = false);
    // Start-up: the command-line root, else Inductor's default root, else the sample cache.
    void openStartupRoot(const QString& commandLineRoot);
    QString currentRoot() const override { return root_; }  // a blob's temporary root while one is open
    // What is open, kept alive with the window (a blob's temporary root is removed when another
    // root is opened or the window closes); the blob file's path for titles and reports.
    std::shared_ptr<const bundle::RootOrBlob> openedRoot() const override { return opened_; }
    QString blobPath() const { return blobPath_; }  // empty unless a blob is open
    // Why the last root or blob opened could not be shown (a truncated blob, a scan that failed);
    // empty while it opens or once it is shown. Waiters (the screenshot tour) stop on it at once.
    QString openError() const { return openError_; }
    // Selects `path` after the next scan finishes (command line --select).
    void selectWhenScanned(const QString& path) { pendingSelect_ = path; }

    // Extension point for other views (timings, charts, autotune ...): a workspace tab beside
    // "Cache" when `area` is Qt::NoDockWidgetArea, else a dock widget in that area. The window
    // takes ownership. Views follow the open cache through rootChanged()/cacheScanned().
    void addPanel(QWidget* panel, const QString& title, Qt::DockWidgetArea area = Qt::NoDockWidgetArea) override;
    JobRunner* jobs() const override { return jobs_; }
    // A menu of a feature (Tune ...), placed before Help so the order stays File, Edit, View, Tune, Help.
    QMenu* addFeatureMenu(const QString& title) override;
    QMenu* viewMenu() const { return viewMenu_; }
    // Window size and dock/toolbar state from the last session (after every panel is added, so their
    // docks are restored too); on first start, a size fitted to the screen.
    void restoreWindow();
    // Workspace tabs by name: "Overview", "Cache", "Diff", and what addPanel added.
    bool showView(const QString& title);
    void showCacheTab() override;

    CacheBrowser* browser() const override { return browser_; }
    InspectorWidget* inspector() const override { return inspector_; }
    DiffView* diffView() const { return diff_; }
    StatusPanel* statusPanel() const { return status_; }
    OverviewPanel* overviewPanel() const { return overview_; }
    // The one health check of the window's scan, shared by the Overview's count and the Health view.
    ScanHealth* scanHealth() const override { return scanHealth_; }
    RootTimings* rootTimings() const override { return rootTimings_; }
    QTabWidget* workspace() const { return workspace_; }

    // ViewHost: what installers use, beside the overrides above.
    QWidget* hostWidget() override { return this; }
    void showStatusMessage(const QString& text, int timeoutMs) override;
    void onRootChanged(QObject* context, std::function<void(const QString&)> f) override;
    void onCacheScanned(QObject* context, std::function<void(std::shared_ptr<const CacheTree>)> f) override;
    void onGraphEntriesRead(
        QObject* context,
        std::function<void(std::shared_ptr<const CacheTree>, std::shared_ptr<const timings::CompileTimes>)> f) override;
    void onInspectionShown(QObject* context, std::function<void(const QString&)> f) override;
    void onAutotuneOpRequested(QObject* context, std::function<void(int)> f) override;

public slots:
    void rescan() override;
    void onLink(const QUrl& url);  // kiln-path:, kiln-category:, kiln-view:, kiln-op:, kiln-action:, kiln-filter:

signals:
    void rootChanged(const QString& root);
    void cacheScanned(std::shared_ptr<const kiln::ui::CacheTree> tree);
    void graphEntriesRead(std::shared_ptr<const kiln::ui::CacheTree> tree,
                          std::shared_ptr<const kiln::timings::CompileTimes> times);
    void inspectionShown(const QString& path);
    void autotuneOpRequested(int opIndex);  // an Overview link to one op of the Autotune view
    // openRoot's outcome, delivered from its job (the cache opened, or why not): the window shows it.
    void cacheOpened(const kiln::ui::OpenedCacheOutcome& cache);

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    void onCacheOpened(const OpenedCacheOutcome& cache);
    void startScan(std::shared_ptr<ScanCounters> counters);
    // The scan's one read of the graph entries (graph_read.hpp): `files` as the walk handed them over,
    // or null (the scan's, after it).
    void startGraphRead(std::shared_ptr<GraphReadState> read, std::shared_ptr<const bundle::RootOrBlob> opened,
                        std::shared_ptr<const inductor::GraphEntryFiles> files);
    void buildActions();       // main_window_actions.cpp
    void rebuildRecentMenu();  // main_window_actions.cpp
    void openDialog();         // main_window_actions.cpp
    void showSettings();       // main_window_actions.cpp
    void applySettings();
    void showRoot(const QString& root, bool isSample, std::shared_ptr<const bundle::RootOrBlob> opened,
                  const QString& blobPath);
    void inspect(const QString& path, const CacheNode& node);
    void joinKernelsToTimings(const std::shared_ptr<const RootTimingsResult>& timings);

    Settings settings_;
    JobRunner* jobs_;
    ScanHealth* scanHealth_;
    RootTimings* rootTimings_;
    CacheWatcher* watcher_;
    CacheBrowser* browser_;
    InspectorWidget* inspector_;
    DiffView* diff_;
    StatusPanel* status_;
    OverviewPanel* overview_;
    QTabWidget* workspace_;
    QWidget* cacheTab_;
    QLabel* banner_;
    QMenu* recentMenu_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    QMenu* helpMenu_ = nullptr;
    QString root_;
    std::shared_ptr<const bundle::RootOrBlob> opened_;
    std::shared_ptr<GraphReadState> graphRead_;  // the last scan's
    QString blobPath_;
    QString openError_;
    bool isSample_ = false;
    QString pendingSelect_;
    // The inspection shown whose kernels wait for the root's timings (RootTimings' one read).
    std::shared_ptr<const KernelsAwaitingTimings> awaitingTimings_;
    // Opens when the open root's Overview is complete: work that only later views show waits for it.
    std::shared_ptr<Gate> firstScreenIn_ = std::make_shared<Gate>();
};

}  // namespace kiln::ui
