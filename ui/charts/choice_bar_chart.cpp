#include "ui/charts/choice_bar_chart.hpp"

#include <qcustomplot.h>
#include <QHelpEvent>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/charts/chart_style.hpp"
#include "ui/theme/palette.hpp"

namespace kiln::ui {

ChoiceBarChart::ChoiceBarChart(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)), failed_(new QLabel(this)) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(plot_, 1);
    lay->addWidget(failed_);
    failed_->setWordWrap(true);
    failed_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    failed_->hide();
    plot_->setObjectName(QStringLiteral("choiceBarPlot"));
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0,
                                    new QCPTextElement(plot_, QString(), QFont(font().family(), 10, QFont::Bold)));
    plot_->xAxis->setLabel(tr("time (ms)"));
    plot_->installEventFilter(this);
    // Bars are horizontal: the key axis is the left one, the value axis the bottom one.
    others_ = new QCPBars(plot_->yAxis, plot_->xAxis);
    winner_ = new QCPBars(plot_->yAxis, plot_->xAxis);
    winner_->setName(tr("winner"));
    others_->setWidth(0.7);
    winner_->setWidth(0.7);
    plot_->yAxis->setRangeReversed(true);  // fastest at the top
    connect(plot_, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable* p, int dataIndex, QMouseEvent*) {
        auto* bars = qobject_cast<QCPBars*>(p);
        if (!bars || dataIndex < 0 || dataIndex >= bars->data()->size()) return;
        int i = static_cast<int>(std::lround((bars->data()->begin() + dataIndex)->key));
        if (i >= 0 && i < bars_.names.size()) emit choiceClicked(bars_.names[i], bars_.modules[i]);
    });
    plot_->setInteraction(QCP::iSelectPlottables, false);
    followPalette(plot_, [this] {
        const ThemeColors& c = themeColors(plot_->palette());
        others_->setBrush(c.series[0]);
        others_->setPen(QPen(c.series[0].darker(120)));
        winner_->setBrush(c.winner);
        winner_->setPen(QPen(c.winner.darker(120)));
    });
}

void ChoiceBarChart::setOp(const timings::Op& op) {
    bars_ = choiceBars(op);
    rebuild();
}

void ChoiceBarChart::clear() {
    bars_ = {};
    rebuild();
}

void ChoiceBarChart::setLogScale(bool on) {
    log_ = on;
    rebuild();
}

void ChoiceBarChart::rebuild() {
    static_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))->setText(bars_.title);
    QVector<double> keys, values, wkeys, wvalues;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < bars_.ms.size(); ++i) {
        ticker->addTick(i, bars_.labels[i] + (i == bars_.winner ? QStringLiteral(" \u2605") : QString()));
        (i == bars_.winner ? wkeys : keys) << i;
        (i == bars_.winner ? wvalues : values) << bars_.ms[i];
    }
    others_->setData(keys, values, true);
    winner_->setData(wkeys, wvalues, true);
    plot_->yAxis->setTicker(ticker);
    plot_->yAxis->setRange(-0.6, std::max<double>(bars_.ms.size(), 1) - 0.4);
    double hi = bars_.ms.isEmpty() ? 1.0 : *std::max_element(bars_.ms.begin(), bars_.ms.end());
    double lo = bars_.ms.isEmpty() ? 0.1 : *std::min_element(bars_.ms.begin(), bars_.ms.end());
    if (log_ && lo > 0) {
        // Bars on a log axis need a positive base; half the fastest time keeps every bar visible.
        plot_->xAxis->setScaleType(QCPAxis::stLogarithmic);
        plot_->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        others_->setBaseValue(lo / 2);
        winner_->setBaseValue(lo / 2);
        plot_->xAxis->setRange(lo / 2, hi * 1.5);
    } else {
        plot_->xAxis->setScaleType(QCPAxis::stLinear);
        plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        others_->setBaseValue(0);
        winner_->setBaseValue(0);
        plot_->xAxis->setRange(0, hi * 1.08);
    }
    failed_->setVisible(!bars_.failed.isEmpty() || !bars_.note.isEmpty());
    failed_->setText(!bars_.note.isEmpty() ? bars_.note : tr("Failed: ") + bars_.failed.join(QStringLiteral("; ")));
    plot_->replot();
}

int ChoiceBarChart::barAt(const QPoint& pos) const {
    if (!plot_->axisRect()->rect().contains(pos)) return -1;
    int i = static_cast<int>(std::lround(plot_->yAxis->pixelToCoord(pos.y())));
    if (i < 0 || i >= bars_.ms.size()) return -1;
    double v = plot_->xAxis->pixelToCoord(pos.x());
    return v <= bars_.ms[i] ? i : -1;
}

bool ChoiceBarChart::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(event);
        int i = barAt(he->pos());
        if (i >= 0) QToolTip::showText(he->globalPos(), bars_.tooltips[i], plot_);
        else QToolTip::hideText();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace kiln::ui
