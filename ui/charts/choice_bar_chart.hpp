#pragma once
// Per-op bar chart: choices sorted by time (fastest at the top), the winner in its own colour,
// a log-scale toggle, tooltips with parameters, wheel zoom and drag pan; clicking a bar emits
// the choice's kernel module so the browser can select it.
#include <QWidget>

#include "ui/charts/choice_bars.hpp"

class QCustomPlot;
class QCPBars;
class QLabel;

namespace kiln::ui {

class ChoiceBarChart : public QWidget {
    Q_OBJECT
public:
    explicit ChoiceBarChart(QWidget* parent = nullptr);

    void setOp(const timings::Op& op);
    void clear();
    void setLogScale(bool on);
    const ChoiceBars& bars() const { return bars_; }
    QCustomPlot* plot() const { return plot_; }
    // Bar index under a widget position of the plot, or -1.
    int barAt(const QPoint& plotPos) const;

signals:
    void choiceClicked(const QString& choice, const QString& modulePath);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild();

    QCustomPlot* plot_;
    QCPBars* others_ = nullptr;
    QCPBars* winner_ = nullptr;
    QLabel* failed_;
    ChoiceBars bars_;
    bool log_ = false;
};

}  // namespace kiln::ui
