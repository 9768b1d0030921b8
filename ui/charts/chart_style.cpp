#include "ui/charts/chart_style.hpp"

#include <qcustomplot.h>
#include <QEvent>
#include <QPalette>

namespace kiln::ui {

namespace {
class PaletteFollower : public QObject {
public:
    PaletteFollower(QCustomPlot* plot, std::function<void()> series)
        : QObject(plot), plot_(plot), series_(std::move(series)) {
        plot->installEventFilter(this);
    }
    void apply() {
        stylePlot(plot_, plot_->palette());
        if (series_) series_();
        plot_->replot();
    }

protected:
    bool eventFilter(QObject* watched, QEvent* e) override {
        if (watched == plot_ && (e->type() == QEvent::PaletteChange || e->type() == QEvent::ApplicationPaletteChange))
            apply();
        return false;
    }

private:
    QCustomPlot* plot_;
    std::function<void()> series_;
};
}  // namespace

void stylePlot(QCustomPlot* plot, const QPalette& p) {
    const QColor text = p.color(QPalette::Text);
    const QColor grid = p.color(QPalette::Mid);
    plot->setBackground(p.brush(QPalette::Base));
    for (auto* rect : plot->axisRects()) {
        rect->setBackground(p.brush(QPalette::Base));
        for (auto* axis : rect->axes()) {
            axis->setBasePen(QPen(text));
            axis->setTickPen(QPen(text));
            axis->setSubTickPen(QPen(text));
            axis->setTickLabelColor(text);
            axis->setLabelColor(text);
            axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
            axis->grid()->setSubGridPen(QPen(grid, 0, Qt::DotLine));
            axis->grid()->setZeroLinePen(QPen(grid));
        }
    }
    for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
        if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i))) title->setTextColor(text);
    if (!plot->legend) return;  // a chart that replaced the default layout has none
    plot->legend->setBrush(p.brush(QPalette::Base));
    plot->legend->setTextColor(text);
    plot->legend->setBorderPen(QPen(grid));
}

void followPalette(QCustomPlot* plot, std::function<void()> recolourSeries) {
    (new PaletteFollower(plot, std::move(recolourSeries)))->apply();
}

}  // namespace kiln::ui
