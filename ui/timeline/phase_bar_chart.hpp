#pragma once
// Each compile of one process as a horizontal bar split into its phases (QCustomPlot, stacked bars:
// one series per phase, the unexplained rest last, in grey), in the order the compiles ran. Hovering
// a segment shows its phase, seconds and cause; clicking it emits segmentClicked (the view's side
// panel shows the fix). The bars' data is a pure value (phaseBarRows), checked against the report.
#include <QString>
#include <QWidget>

#include <vector>

#include "startup/startup_report.hpp"

class QCustomPlot;
class QMouseEvent;

namespace kiln::ui {

struct PhaseSegment {
    QString phase;  // a phase name, or "unexplained"
    double start = 0, seconds = 0;
    QString cause, fix;
};

struct PhaseBarRow {
    QString label;  // "c (gen_inductor_cache.py:118) 0/0"
    double seconds = 0;
    std::vector<PhaseSegment> segments;  // left to right: the phase table's order, other phases, unexplained
};

std::vector<PhaseBarRow> phaseBarRows(const startup::ProcessStartup& p);

class PhaseBarChart : public QWidget {
    Q_OBJECT
public:
    explicit PhaseBarChart(QWidget* parent = nullptr);
    void setProcess(const startup::ProcessStartup* p);
    const std::vector<PhaseBarRow>& rows() const { return rows_; }
    QCustomPlot* plot() const { return plot_; }
    // The segment under a plot position (pixels), or {-1, nullptr}.
    std::pair<int, const PhaseSegment*> segmentAt(const QPointF& pos) const;
    // The tooltip text of a segment: what ran, how long, and why.
    static QString segmentText(const PhaseBarRow& row, const PhaseSegment& s);

signals:
    void segmentClicked(int row, const QString& phase);

private:
    void onMove(QMouseEvent* e);
    void onPress(QMouseEvent* e);
    void recolour();

    QCustomPlot* plot_;
    std::vector<PhaseBarRow> rows_;
    std::vector<QString> series_;  // the phase of each plottable
};

}  // namespace kiln::ui
