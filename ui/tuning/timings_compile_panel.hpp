#pragma once
// "Compile times" tab: follows the open cache root; reads every graph entry's compile time and
// the cache's size by category in the background. On top, one bar per graph entry labelled by the
// frame that compiled it (TORCH_TRACE logs beside the root), slowest first, sortable by any column;
// activating a row selects the entry. Below, the distribution and the size by category; export.
#include <QWidget>

#include <memory>
#include <vector>

#include "timings/compile_times.hpp"
#include "ui/tuning/compile_entries_model.hpp"

class QLabel;
class QTreeView;

namespace kiln::ui {

class CacheTree;

class CompileTimeChart;
class JobRunner;

class TimingsCompilePanel : public QWidget {
    Q_OBJECT
public:
    explicit TimingsCompilePanel(JobRunner* jobs, QWidget* parent = nullptr);
    void loadRoot(const QString& root);
    // The same from the window's scan (no second walk of the root).
    void loadScan(std::shared_ptr<const CacheTree> tree);
    // The compile times of the window's one read of the graph entries (no second read of them): only
    // the rows are made, off the UI thread.
    void showCompileTimes(std::shared_ptr<const CacheTree> tree, std::shared_ptr<const timings::CompileTimes> data);
    CompileTimeChart* chart() const { return chart_; }
    QTreeView* entries() const { return entries_; }  // Entry, Compile time (a bar), Key; PathRole = the entry file
    static constexpr int PathRole = CompileEntriesModel::PathRole;
    bool isLoading() const;

signals:
    void loaded(int graphs);
    void entryActivated(const QString& path);

private:
    struct Loaded {  // what a job hands the view
        timings::CompileTimes data;
        std::vector<CompileEntryRow> rows;
    };
    void present(Loaded out);
    void fillEntries(std::vector<CompileEntryRow> rows);

    JobRunner* jobs_;
    CompileTimeChart* chart_;
    CompileEntriesModel* model_;
    QTreeView* entries_;
    QLabel* status_;
};

}  // namespace kiln::ui
