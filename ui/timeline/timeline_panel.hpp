#pragma once
// The "Compile timeline" workspace tab (like tlparse's per-compile-id view, in the app): the TORCH_TRACE
// logs beside the open cache (or a folder the user opens), one column per process side by side (cold
// beside warm), each compile with its frame, time and cache events (FX graph / AOTAutograd hit, miss,
// bypass, the miss reason, the compile time a hit saved). Activating an event selects its entry.
// Above them, "where the compile time went" (StartupView: each compile as a bar split into its phases,
// causes and fixes; startup::analyze_startup, what `kiln-cli startup` prints), read in the same job.
// Read off the UI thread (trace::read_compile_timelines, "timeline" channel).
#include <QWidget>

#include <memory>

#include "bundle/temp_root.hpp"
#include "startup/startup_report.hpp"
#include "trace/compile_timeline.hpp"

class QLabel;
class QPushButton;
class QSplitter;
class QTreeWidget;
class QTreeWidgetItem;

namespace kiln::ui {

class JobRunner;
class StartupView;

class TimelinePanel : public QWidget {
    Q_OBJECT
public:
    enum Role { CacheRole = Qt::UserRole + 1, StateRole, KeyRole };  // on event items

    explicit TimelinePanel(JobRunner* jobs, QWidget* parent = nullptr);

    // The TORCH_TRACE dirs beside it; misses compared with the entries of `opened` (what the window opened
    // of `root`, read through its descriptor), or, without it, of a root found beside the logs.
    void loadRoot(const QString& root, std::shared_ptr<const bundle::RootOrBlob> opened = nullptr);
    void loadDirs(const QStringList& dirs);  // these logs or folders
    // One more run beside those shown (Open TORCH_TRACE folder…): the timeline of all of them.
    void addDir(const QString& dir);
    QStringList dirs() const { return dirs_; }
    void setTimeline(std::shared_ptr<const trace::CompileTimeline> t, const QString& emptyText = {});
    std::shared_ptr<const trace::CompileTimeline> timeline() const { return timeline_; }
    int processCount() const;
    QTreeWidget* processTree(int i) const;
    StartupView* startupView() const { return startup_; }
    bool isLoading() const;

public slots:
    void openFolder();

signals:
    void loaded(int processes);
    void keyActivated(const QString& key);  // an FX graph ("f…") or AOTAutograd ("a…") key

private:
    void clearColumns();
    QWidget* processColumn(const trace::TimelineProcess& p);

    JobRunner* jobs_;
    QLabel* summary_;
    QPushButton* open_;
    QSplitter* columns_;
    StartupView* startup_;
    QString root_;
    std::weak_ptr<const bundle::RootOrBlob> opened_;  // the window owns it (a blob's temporary root goes with it)
    QStringList dirs_;                                // the TORCH_TRACE dirs or logs shown
    std::shared_ptr<const trace::CompileTimeline> timeline_;
};

}  // namespace kiln::ui
