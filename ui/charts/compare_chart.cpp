#include "ui/charts/compare_chart.hpp"

#include <qcustomplot.h>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/charts/chart_style.hpp"
#include "ui/theme/palette.hpp"

namespace kiln::ui {

namespace {
// Device d's colour: the theme's series in order.
QColor deviceColor(const QCustomPlot* plot, int d) {
    const auto& series = themeColors(plot->palette()).series;
    return series[static_cast<size_t>(d) % std::size(series)];
}
}  // namespace

CompareChart::CompareChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(plot_);
    plot_->setObjectName(QStringLiteral("comparePlot"));
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0,
                                    new QCPTextElement(plot_, QString(), QFont(font().family(), 10, QFont::Bold)));
    plot_->xAxis->setLabel(tr("time (ms)"));
    plot_->yAxis->setRangeReversed(true);
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    followPalette(plot_, [this] {
        for (int d = 0; d < plot_->plottableCount(); ++d) {
            if (auto* bars = qobject_cast<QCPBars*>(plot_->plottable(d))) {
                bars->setBrush(deviceColor(plot_, d));
                bars->setPen(QPen(deviceColor(plot_, d).darker(130)));
            }
        }
    });
}

void CompareChart::clear() {
    plot_->clearPlottables();
    table_ = {};
    static_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))->setText(QString());
    plot_->replot();
}

void CompareChart::setLogScale(bool on) {
    log_ = on;
    plot_->xAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (on) plot_->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    else plot_->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot_->rescaleAxes();
    plot_->replot();
}

int CompareChart::barCount() const {
    int n = 0;
    for (int i = 0; i < plot_->plottableCount(); ++i)
        if (auto* b = qobject_cast<QCPBars*>(plot_->plottable(i))) n += b->data()->size();
    return n;
}

void CompareChart::setOp(const timings::ComparedOp& op, const std::vector<std::string>& devices, int maxChoices) {
    plot_->clearPlottables();
    const int n = std::min<int>(maxChoices, static_cast<int>(op.choices.size()));
    const int nd = static_cast<int>(devices.size());
    QString title = QString::fromStdString(op.op + "  " + op.inputs);
    if (op.winner_differs) title += tr("   — the winner differs between devices");
    static_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))->setText(title);

    table_ = {};
    table_.title = title;
    table_.header << QStringLiteral("choice");
    for (const auto& d : devices) table_.header << QString::fromStdString(d) + QStringLiteral(" ms");

    auto* group = new QCPBarsGroup(plot_);
    group->setSpacing(1);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; ++i) {
        const auto& c = op.choices[static_cast<size_t>(i)];
        // The choice's one name (torch's short name and the config that tells it apart), not its
        // whole parameter list: every bar of an mm would read `triton_mm(EVEN_K=True, ...`.
        QString label = QString::fromStdString(c.label.empty() ? c.identity : c.label);
        if (label.size() > 70) label = label.left(67) + QStringLiteral("…");
        QStringList stars;
        for (int d = 0; d < nd; ++d)
            if (op.best[static_cast<size_t>(d)] == c.identity) stars << QStringLiteral("\u2605%1").arg(d + 1);
        if (!stars.isEmpty()) label += QLatin1Char(' ') + stars.join(QLatin1Char(' '));
        ticker->addTick(i, label);
        QStringList row{QString::fromStdString(c.label.empty() ? c.identity : c.label)};
        for (int d = 0; d < nd; ++d) {
            auto ms = c.ms[static_cast<size_t>(d)];
            row << (ms ? QString::number(*ms, 'g', 17) : QString());
            if (ms) {
                lo = std::min(lo, *ms);
                hi = std::max(hi, *ms);
            }
        }
        table_.rows.push_back(row);
    }
    for (int d = 0; d < nd; ++d) {
        auto* bars = new QCPBars(plot_->yAxis, plot_->xAxis);
        bars->setName(QStringLiteral("%1  %2").arg(d + 1).arg(QString::fromStdString(devices[static_cast<size_t>(d)])));
        const QColor color = deviceColor(plot_, d);
        bars->setBrush(color);
        bars->setPen(QPen(color.darker(130)));
        bars->setWidth(0.8 / std::max(nd, 1));
        bars->setBarsGroup(group);
        for (int i = 0; i < n; ++i)
            if (auto ms = op.choices[static_cast<size_t>(i)].ms[static_cast<size_t>(d)]) bars->addData(i, *ms);
        if (log_ && lo < INFINITY) bars->setBaseValue(lo / 2);
    }
    plot_->yAxis->setTicker(ticker);
    plot_->yAxis->setRange(-0.6, std::max(n, 1) - 0.4);
    if (hi > 0) plot_->xAxis->setRange(log_ ? lo / 2 : 0, hi * (log_ ? 1.5 : 1.08));
    plot_->replot();
}

}  // namespace kiln::ui
