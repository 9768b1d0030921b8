#pragma once
// Compile-time view: the distribution of `_time_taken_ns` over the cache's graph entries
// (log-spaced histogram) beside the cache's size by category.
#include <QWidget>

#include "timings/compile_times.hpp"
#include "ui/charts/chart_table.hpp"

class QCustomPlot;

namespace kiln::ui {

class CompileTimeChart : public QWidget {
    Q_OBJECT
public:
    explicit CompileTimeChart(QWidget* parent = nullptr);
    void setData(timings::CompileTimes data);  // kept (export): moved in, not copied
    QCustomPlot* plot() const { return plot_; }
    ChartTable table() const;  // one row per graph (path, seconds) and per category (bytes)
    int histogramTotal() const { return histogramTotal_; }

private:
    QCustomPlot* plot_;
    timings::CompileTimes data_;
    int histogramTotal_ = 0;
};

}  // namespace kiln::ui
