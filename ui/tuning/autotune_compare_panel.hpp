#pragma once
// "Compare devices" tab: load two or more timing files or cache roots (e.g. copied from two
// machines); each becomes a device (or several, when one root holds files of several systems).
// Shows the comparison table (speed-ups, winner differs) and grouped bars of the selected op.
#include <QWidget>

#include "timings/compare.hpp"

class QCheckBox;
class QLabel;
class QListWidget;
class QStackedWidget;
class QTableView;

namespace kiln::ui {

class AutotuneCompareModel;
class CompareChart;
class JobRunner;

class AutotuneComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit AutotuneComparePanel(JobRunner* jobs, QWidget* parent = nullptr);

    // Reads `path` in the background and adds its device(s).
    void addSource(const QString& path);
    // Adds already read timings (tests, the launcher's results).
    void addDevices(std::vector<timings::DeviceTimings> devices);
    void clearSources();
    // Follows the open cache: its timing sources, one device per system (an H100 cache used on an H200
    // holds both); sources the user added stay until Clear.
    void loadRoot(const QString& root);
    void selectOp(int row);

    AutotuneCompareModel* model() const { return model_; }
    CompareChart* chart() const { return chart_; }
    QTableView* table() const { return table_; }
    int deviceCount() const { return static_cast<int>(devices_.size()); }
    bool isLoading() const;

    QString exportChart(const QString& path) const;
    QString exportData(const QString& path) const;  // the comparison table

public slots:
    void addDialog();

signals:
    void compared(int ops);

private:
    void recompute();

    JobRunner* jobs_;
    std::vector<timings::DeviceTimings> devices_;
    AutotuneCompareModel* model_;
    CompareChart* chart_;
    QListWidget* sources_;
    QTableView* table_;
    QCheckBox* log_;
    QLabel* status_;
    QStackedWidget* pages_;  // the empty state ("add a second timing source") or the comparison
    QLabel* empty_;
    QString root_;
    int pending_ = 0;
};

}  // namespace kiln::ui
