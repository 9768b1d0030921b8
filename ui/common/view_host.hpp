#pragma once
// What a feature's installer (`install*View(ViewHost&)`) may ask of the window that hosts it: a
// place for its panel and menu, the window's job runner, browser, inspector and scan health, and
// the window's events as callbacks. MainWindow implements it; installers include this, never
// shell/main_window.hpp, so ui/shell stays the roof (it includes the features, not the reverse).
#include <QString>
#include <Qt>

#include <functional>
#include <memory>

class QMenu;
class QObject;
class QWidget;

namespace kiln::bundle {
struct RootOrBlob;
}
namespace kiln::timings {
struct CompileTimes;
}

namespace kiln::ui {

class CacheBrowser;
class CacheTree;
class InspectorWidget;
class JobRunner;
class RootTimings;
class ScanHealth;

class ViewHost {
public:
    virtual ~ViewHost() = default;

    virtual QWidget* hostWidget() = 0;  // the window: parent of dialogs, context of connections
    // A workspace tab (Qt::NoDockWidgetArea) or a dock; the window takes ownership.
    virtual void addPanel(QWidget* panel, const QString& title, Qt::DockWidgetArea area = Qt::NoDockWidgetArea) = 0;
    virtual QMenu* addFeatureMenu(const QString& title) = 0;
    virtual JobRunner* jobs() const = 0;
    virtual CacheBrowser* browser() const = 0;
    virtual InspectorWidget* inspector() const = 0;
    virtual ScanHealth* scanHealth() const = 0;
    virtual RootTimings* rootTimings() const = 0;  // the one read of the open root's timings
    virtual QString currentRoot() const = 0;
    virtual std::shared_ptr<const bundle::RootOrBlob> openedRoot() const = 0;
    virtual void showCacheTab() = 0;
    virtual void showStatusMessage(const QString& text, int timeoutMs) = 0;
    virtual void rescan() = 0;

    // `f` runs on each of the window's events while `context` lives (in `context`'s thread).
    virtual void onRootChanged(QObject* context, std::function<void(const QString& root)> f) = 0;
    virtual void onCacheScanned(QObject* context, std::function<void(std::shared_ptr<const CacheTree>)> f) = 0;
    // The window's one read of a scan's graph entries (after onCacheScanned): their compile times.
    virtual void onGraphEntriesRead(
        QObject* context,
        std::function<void(std::shared_ptr<const CacheTree>, std::shared_ptr<const timings::CompileTimes>)> f) = 0;
    virtual void onInspectionShown(QObject* context, std::function<void(const QString& path)> f) = 0;
    virtual void onAutotuneOpRequested(QObject* context, std::function<void(int op)> f) = 0;
};

}  // namespace kiln::ui
