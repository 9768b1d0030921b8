#pragma once
// Device comparison table: one row per op timed on two or more devices. For each device, its best
// time and speed-up against the first device; a last column flags ops whose winner differs.
#include <QAbstractTableModel>

#include <memory>

#include "timings/compare.hpp"
#include "ui/charts/chart_table.hpp"

namespace kiln::ui {

class AutotuneCompareModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum { SortRole = Qt::UserRole + 1, WinnerDiffersRole };
    explicit AutotuneCompareModel(QObject* parent = nullptr);

    void setComparison(timings::Comparison cmp);
    // One made elsewhere (off the UI thread), kept without a copy; null shows none.
    void setComparison(std::shared_ptr<const timings::Comparison> cmp);
    const timings::Comparison& comparison() const { return *cmp_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    ChartTable table() const;  // what the table shows, for export

private:
    // Columns: Op, Inputs, Precision, then per device (best ms, speed-up, winner), then "Winner differs".
    // The first device has no speed-up column: it is the baseline (1.00× on every row).
    static constexpr int kFixed = 3;
    enum class DeviceColumn { best, speedup, winner };
    struct Located {
        int device = -1;  // -1: not a device column
        DeviceColumn kind = DeviceColumn::best;
    };
    Located locate(int column) const;
    int devices() const { return static_cast<int>(cmp_->devices.size()); }
    std::shared_ptr<const timings::Comparison> cmp_ = std::make_shared<const timings::Comparison>();
};

}  // namespace kiln::ui
