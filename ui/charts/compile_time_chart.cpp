#include "ui/charts/compile_time_chart.hpp"

#include <qcustomplot.h>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/charts/chart_style.hpp"
#include "ui/theme/palette.hpp"

namespace kiln::ui {

namespace {
QString secondsLabel(double s) {
    if (s < 1) return QStringLiteral("%1 ms").arg(s * 1000, 0, 'g', 3);
    return QStringLiteral("%1 s").arg(s, 0, 'g', 3);
}
}  // namespace

CompileTimeChart::CompileTimeChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(plot_);
    plot_->setObjectName(QStringLiteral("compileTimePlot"));
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // Two axis rects side by side: histogram (left) and sizes by category (right).
    plot_->plotLayout()->clear();
    auto* left = new QCPAxisRect(plot_);
    auto* right = new QCPAxisRect(plot_);
    plot_->plotLayout()->addElement(
        0, 0,
        new QCPTextElement(plot_, tr("Graph compile time (_time_taken_ns)"), QFont(font().family(), 10, QFont::Bold)));
    plot_->plotLayout()->addElement(
        0, 1, new QCPTextElement(plot_, tr("Cache size by category"), QFont(font().family(), 10, QFont::Bold)));
    plot_->plotLayout()->addElement(1, 0, left);
    plot_->plotLayout()->addElement(1, 1, right);
    left->axis(QCPAxis::atLeft)->setLabel(tr("graphs"));
    right->axis(QCPAxis::atBottom)->setLabel(tr("MB"));
    followPalette(plot_, [this] {
        for (int i = 0; i < plot_->plottableCount(); ++i)  // the histogram, then the sizes
            if (auto* bars = qobject_cast<QCPBars*>(plot_->plottable(i)))
                bars->setBrush(themeColors(plot_->palette()).series[i % 2]);
    });
}

void CompileTimeChart::setData(timings::CompileTimes in) {
    data_ = std::move(in);
    const timings::CompileTimes& data = data_;
    plot_->clearPlottables();
    auto* left = plot_->axisRect(0);
    auto* right = plot_->axisRect(1);

    auto bins = timings::log_histogram(data.graphs);
    auto* hist = new QCPBars(left->axis(QCPAxis::atBottom), left->axis(QCPAxis::atLeft));
    hist->setBrush(themeColors(plot_->palette()).series[0]);
    hist->setWidth(0.85);
    QSharedPointer<QCPAxisTickerText> xt(new QCPAxisTickerText);
    histogramTotal_ = 0;
    int maxCount = 1;
    for (int i = 0; i < static_cast<int>(bins.size()); ++i) {
        hist->addData(i, bins[static_cast<size_t>(i)].count);
        histogramTotal_ += bins[static_cast<size_t>(i)].count;
        maxCount = std::max(maxCount, bins[static_cast<size_t>(i)].count);
        xt->addTick(i, secondsLabel(bins[static_cast<size_t>(i)].lo_s));
    }
    left->axis(QCPAxis::atBottom)->setTicker(xt);
    left->axis(QCPAxis::atBottom)->setTickLabelRotation(45);
    left->axis(QCPAxis::atBottom)->setRange(-0.7, std::max<double>(bins.size(), 1) - 0.3);
    left->axis(QCPAxis::atLeft)->setRange(0, maxCount + 0.5);

    auto* sizes = new QCPBars(right->axis(QCPAxis::atLeft), right->axis(QCPAxis::atBottom));
    sizes->setBrush(themeColors(plot_->palette()).series[1]);
    sizes->setWidth(0.7);
    QSharedPointer<QCPAxisTickerText> yt(new QCPAxisTickerText);
    double maxMb = 0.001;
    for (int i = 0; i < static_cast<int>(data.categories.size()); ++i) {
        const auto& c = data.categories[static_cast<size_t>(i)];
        double mb = static_cast<double>(c.bytes) / 1e6;
        sizes->addData(i, mb);
        maxMb = std::max(maxMb, mb);
        yt->addTick(i, QStringLiteral("%1 (%2)").arg(QString::fromStdString(c.category)).arg(c.files));
    }
    right->axis(QCPAxis::atLeft)->setTicker(yt);
    right->axis(QCPAxis::atLeft)->setRangeReversed(true);
    right->axis(QCPAxis::atLeft)->setRange(-0.6, std::max<double>(data.categories.size(), 1) - 0.4);
    right->axis(QCPAxis::atBottom)->setRange(0, maxMb * 1.1);
    plot_->replot();
}

ChartTable CompileTimeChart::table() const {
    ChartTable t;
    t.title = tr("Compile times and cache size");
    t.header = {QStringLiteral("kind"), QStringLiteral("name"), QStringLiteral("seconds"), QStringLiteral("files"),
                QStringLiteral("bytes")};
    for (const auto& g : data_.graphs)
        t.rows.push_back({QStringLiteral("graph"), QString::fromStdString(g.path), QString::number(g.ns / 1e9, 'g', 12),
                          QString(), QString()});
    for (const auto& c : data_.categories)
        t.rows.push_back({QStringLiteral("category"), QString::fromStdString(c.category), QString(),
                          QString::number(c.files), QString::number(c.bytes)});
    return t;
}

}  // namespace kiln::ui
