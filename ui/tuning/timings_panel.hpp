#pragma once
// The "Autotune" workspace tab: every timing source under the open cache root (or files the user
// opens), as an op list, the per-op bar chart and the autotune table, with export. Reading runs
// off the UI thread through the JobRunner ("timings" channel: a newer load drops an older one).
#include <QWidget>

#include <memory>

#include "timings/timing_model.hpp"
#include "ui/tuning/op_list_texts.hpp"

class QCheckBox;
class QLabel;
class QListWidget;
class QSortFilterProxyModel;
class QTreeView;

namespace kiln::ui {

class AutotuneTableModel;
class ChoiceBarChart;
class JobRunner;
class RootTimings;
struct RootTimingsResult;

class TimingsPanel : public QWidget {
    Q_OBJECT
public:
    // `jobs` may be null (tests): the panel then owns a runner of its own.
    explicit TimingsPanel(JobRunner* jobs, QWidget* parent = nullptr);

    // Reads every timing source under these files/folders in the background.
    void load(const QStringList& paths);
    void setTimings(std::shared_ptr<const timings::TimingSet> set);
    // Shows the window's one read of its root (every view shares its set) each time it is loaded;
    // isLoading() counts that read too.
    void followRootTimings(RootTimings* shared);
    void selectOp(int index);

    AutotuneTableModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    ChoiceBarChart* chart() const { return chart_; }
    QListWidget* opList() const { return ops_; }
    QTreeView* table() const { return table_; }
    bool isLoading() const;

    QString exportChart(const QString& path) const;  // error message, empty on success
    QString exportData(const QString& path) const;

public slots:
    void openFiles();
    void openFolder();

signals:
    void loaded(int ops);
    void moduleSelected(const QString& path);  // a bar or row whose kernel module is in the cache
    void launchRequested();                    // "New session..." (the launcher dialog)
    void retuneRequested();                    // "Re-tune on this machine..." (the cache's own choices)

private:
    void onRowActivated(const QModelIndex& proxyIndex);
    void spanOpRows();
    void showLoaded(std::shared_ptr<const timings::TimingSet> set, OpListTexts texts, const QString& error);
    void showSet(std::shared_ptr<const timings::TimingSet> set, OpListTexts texts);

    JobRunner* jobs_;
    RootTimings* shared_ = nullptr;
    AutotuneTableModel* model_;
    QSortFilterProxyModel* proxy_;
    ChoiceBarChart* chart_;
    QListWidget* ops_;
    QTreeView* table_;
    QCheckBox* log_;
    QLabel* status_;
    QStringList paths_;
    QStringList usedByTexts_;  // the set's distinct "used by" texts: the column's width
    int current_ = -1;
};

}  // namespace kiln::ui
