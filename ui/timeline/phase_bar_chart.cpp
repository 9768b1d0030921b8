#include "ui/timeline/phase_bar_chart.hpp"

#include <qcustomplot.h>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>

#include "startup/phase_names.hpp"
#include "ui/charts/chart_style.hpp"
#include "ui/common/qt_string.hpp"
#include "ui/theme/palette.hpp"

namespace kiln::ui {

namespace {

int phaseOrder(const QString& phase) {
    int i = 0;
    for (const char* name : startup::kPhaseNames) {
        if (phase == QLatin1String(name)) return i;
        ++i;
    }
    return phase == QLatin1String("unexplained") ? 1000 : 500;  // other phases, then the rest
}

// A colour per phase in the table's order (ui/theme), grey for the unexplained rest, and a hue from
// the name for phases Kiln does not know.
QColor phaseColour(const QString& phase, const QPalette& palette) {
    if (phase == QLatin1String("unexplained")) return restColor(palette);
    return categoryColor(phaseOrder(phase), uint(qHash(phase)), palette);
}

}  // namespace

std::vector<PhaseBarRow> phaseBarRows(const startup::ProcessStartup& p) {
    std::vector<PhaseBarRow> rows;
    for (const auto& c : p.compiles) {
        PhaseBarRow row;
        row.label = qstr(c.label());
        row.seconds = c.seconds;
        for (const auto& ph : c.phases)
            row.segments.push_back({qstr(ph.name), 0, ph.seconds, qstr(ph.cause), qstr(ph.fix)});
        std::stable_sort(row.segments.begin(), row.segments.end(), [](const PhaseSegment& a, const PhaseSegment& b) {
            return phaseOrder(a.phase) < phaseOrder(b.phase);
        });
        row.segments.push_back({QStringLiteral("unexplained"),
                                0,
                                std::max(0.0, c.unexplained_seconds),
                                QObject::tr("time inside the compile that no span of the trace covers"),
                                {}});
        double at = 0;
        for (auto& s : row.segments) {
            s.start = at;
            at += s.seconds;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

QString PhaseBarChart::segmentText(const PhaseBarRow& row, const PhaseSegment& s) {
    QString t = QStringLiteral("%1\n%2: %3 of %4")
                    .arg(row.label, s.phase, formatSeconds(s.seconds), formatSeconds(row.seconds));
    if (!s.cause.isEmpty()) t += QStringLiteral("\n") + s.cause;
    if (!s.fix.isEmpty()) t += QObject::tr("\nClick for the fix.");
    return t;
}

PhaseBarChart::PhaseBarChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(plot_);
    plot_->setObjectName(QStringLiteral("phaseBarPlot"));
    plot_->setMouseTracking(true);
    plot_->xAxis->setLabel(tr("seconds (phases: self time of torch's spans)"));
    // The legend beside the bars, never over them.
    plot_->legend->setVisible(true);
    auto* legendRect = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(0, 1, legendRect);
    legendRect->addElement(0, 0, plot_->legend);
    legendRect->setMargins(QMargins(0, 6, 6, 6));
    plot_->plotLayout()->setColumnStretchFactor(1, 0.001);
    plot_->legend->setFillOrder(QCPLegend::foRowsFirst);
    plot_->legend->setRowSpacing(0);
    plot_->legend->setIconSize(14, 10);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    plot_->legend->setFont(small);
    connect(plot_, &QCustomPlot::mouseMove, this, &PhaseBarChart::onMove);
    connect(plot_, &QCustomPlot::mousePress, this, &PhaseBarChart::onPress);
    followPalette(plot_, [this] { recolour(); });
}

void PhaseBarChart::recolour() {
    for (int i = 0; i < plot_->plottableCount() && i < int(series_.size()); ++i)
        if (auto* bars = qobject_cast<QCPBars*>(plot_->plottable(i))) {
            const QColor c = phaseColour(series_[static_cast<std::size_t>(i)], plot_->palette());
            bars->setBrush(c);
            bars->setPen(QPen(c.darker(130)));
        }
}

void PhaseBarChart::setProcess(const startup::ProcessStartup* p) {
    rows_ = p ? phaseBarRows(*p) : std::vector<PhaseBarRow>{};
    plot_->clearPlottables();
    series_.clear();
    std::vector<QString> phases;  // every phase any row has, in stacking order
    for (const auto& r : rows_)
        for (const auto& s : r.segments)
            if (std::find(phases.begin(), phases.end(), s.phase) == phases.end()) phases.push_back(s.phase);
    std::stable_sort(phases.begin(), phases.end(),
                     [](const QString& a, const QString& b) { return phaseOrder(a) < phaseOrder(b); });
    QCPBars* below = nullptr;
    double longest = 0.001;
    for (const auto& phase : phases) {
        auto* bars = new QCPBars(plot_->yAxis, plot_->xAxis);
        bars->setName(phase);
        bars->setWidth(0.7);
        bars->setStackingGap(0);
        for (int i = 0; i < int(rows_.size()); ++i) {
            double v = 0;
            for (const auto& s : rows_[static_cast<std::size_t>(i)].segments)
                if (s.phase == phase) v += s.seconds;
            bars->addData(i, v);
        }
        if (below) bars->moveAbove(below);
        below = bars;
        series_.push_back(phase);
        // Phases too small to see in any bar stay out of the legend.
        bool visible = false;
        for (const auto& r : rows_)
            for (const auto& s : r.segments)
                visible |= s.phase == phase && s.seconds >= 0.01 * r.seconds && s.seconds > 0.005;
        if (!visible) bars->removeFromLegend();
    }
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (int i = 0; i < int(rows_.size()); ++i) {
        const auto& r = rows_[static_cast<std::size_t>(i)];
        ticks->addTick(i, QStringLiteral("%1  %2").arg(r.label, formatSeconds(r.seconds)));
        longest = std::max(longest, r.seconds);
    }
    plot_->yAxis->setTicker(ticks);
    plot_->yAxis->setRangeReversed(true);
    plot_->yAxis->setRange(-0.6, std::max<double>(rows_.size(), 1) - 0.4);
    plot_->xAxis->setRange(0, longest * 1.05);
    recolour();
    plot_->replot();
}

std::pair<int, const PhaseSegment*> PhaseBarChart::segmentAt(const QPointF& pos) const {
    if (!plot_->axisRect()->rect().contains(pos.toPoint())) return {-1, nullptr};
    const double key = plot_->yAxis->pixelToCoord(pos.y());
    const int row = int(std::lround(key));
    if (row < 0 || row >= int(rows_.size()) || std::abs(key - row) > 0.35) return {-1, nullptr};
    const double x = plot_->xAxis->pixelToCoord(pos.x());
    for (const auto& s : rows_[static_cast<std::size_t>(row)].segments)
        if (x >= s.start && x < s.start + s.seconds) return {row, &s};
    return {row, nullptr};
}

void PhaseBarChart::onMove(QMouseEvent* e) {
    auto [row, seg] = segmentAt(e->position());
    if (!seg) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(e->globalPosition().toPoint(), segmentText(rows_[static_cast<std::size_t>(row)], *seg), plot_);
}

void PhaseBarChart::onPress(QMouseEvent* e) {
    auto [row, seg] = segmentAt(e->position());
    if (seg) emit segmentClicked(row, seg->phase);
}

}  // namespace kiln::ui
