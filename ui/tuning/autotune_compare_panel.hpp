#pragma once
// "Compare devices" tab: load two or more timing files or cache roots (e.g. copied from two
// machines); each becomes a device (or several, when one root holds files of several systems).
// Shows the comparison table (speed-ups, winner differs) and grouped bars of the selected op.
#include <QWidget>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "timings/compare.hpp"
#include "ui/tuning/timing_devices.hpp"

class QCheckBox;
class QLabel;
class QListWidget;
class QStackedWidget;
class QTableView;

namespace kiln::ui {

class AutotuneCompareModel;
class CompareChart;
class JobRunner;
class RootTimings;

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
    // Takes the open root's timings from the window's one read (loadRoot asks it) instead of reading
    // the root again: the root's devices view that set's ops, no copy of them is kept.
    void followRootTimings(RootTimings* shared);
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

public:
    using Device = TimingDevice;
    // The devices' own sets as compare_devices takes them (copies of their ops).
    std::vector<timings::DeviceTimings> deviceTimings() const { return deviceTimingsOf(devices_); }
    // The set device i views (the window's shared read for the open root's devices).
    std::shared_ptr<const timings::TimingSet> deviceSet(int i) const {
        return devices_.at(static_cast<std::size_t>(i)).set;
    }

private:
    // Compares devices_, or shows `ready` (their comparison, made off the UI thread) when given.
    void recompute(std::shared_ptr<const timings::Comparison> ready = nullptr);
    void addShared(std::vector<Device> devices, const QString& path,
                   std::shared_ptr<const timings::Comparison> ready = nullptr);  // with a line per device in the list
    void appendDevices(std::vector<Device> devices, std::shared_ptr<const timings::Comparison> ready = nullptr);

    JobRunner* jobs_;
    RootTimings* shared_ = nullptr;
    std::vector<Device> devices_;
    AutotuneCompareModel* model_;
    CompareChart* chart_;
    QListWidget* sources_;
    QTableView* table_;
    QCheckBox* log_;
    QLabel* status_;
    QStackedWidget* pages_;  // the empty state ("add a second timing source") or the comparison
    QLabel* empty_;
    QString root_;
    std::shared_ptr<const timings::TimingSet> rootSet_;  // the shared read of root_ its devices view
    int pending_ = 0;
};

}  // namespace kiln::ui
