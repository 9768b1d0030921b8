#pragma once
// Grouped bars for one op compared across devices: per choice (matched by what it is, not its
// module hash), one bar per device; each device's winner is starred in the choice's label.
#include <QWidget>

#include "timings/compare.hpp"
#include "ui/charts/chart_table.hpp"

class QCustomPlot;

namespace kiln::ui {

class CompareChart : public QWidget {
    Q_OBJECT
public:
    explicit CompareChart(QWidget* parent = nullptr);
    // Shows `op` with at most `maxChoices` choices (fastest on the first device first).
    void setOp(const timings::ComparedOp& op, const std::vector<std::string>& devices, int maxChoices = 12);
    void clear();
    void setLogScale(bool on);
    QCustomPlot* plot() const { return plot_; }
    ChartTable table() const { return table_; }
    int barCount() const;  // bars drawn (with a time), over all devices

private:
    QCustomPlot* plot_;
    ChartTable table_;
    bool log_ = false;
};

}  // namespace kiln::ui
