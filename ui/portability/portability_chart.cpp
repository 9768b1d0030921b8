#include "ui/portability/portability_chart.hpp"

#include <qcustomplot.h>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/charts/chart_style.hpp"
#include "ui/portability/verdict_style.hpp"

namespace kiln::ui {

using portability::ItemKind;
using portability::Verdict;

QString itemKindTitle(ItemKind k) {
    switch (k) {
        case ItemKind::fx_graph: return QObject::tr("FX graph entries");
        case ItemKind::aot_autograd: return QObject::tr("AOTAutograd entries");
        case ItemKind::timing_cache: return QObject::tr("autotune timing caches");
        case ItemKind::best_config: return QObject::tr(".best_config files");
        case ItemKind::triton_kernel: return QObject::tr("Triton kernel dirs");
    }
    return {};
}

PortabilityBars portabilityBars(const portability::PortableSummary& summary) {
    PortabilityBars b;
    for (std::size_t k = 0; k < portability::kItemKinds; ++k) {
        const auto& c = summary.counts[k];
        if (c.total == 0) continue;
        b.kinds.push_back({itemKindTitle(ItemKind(k)), int(c.hit), int(c.miss), int(c.unknown)});
    }
    for (const auto& t : summary.differing) b.components.push_back({QString::fromStdString(t.component), int(t.items)});
    return b;
}

PortabilityChart::PortabilityChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(plot_);
    plot_->setObjectName(QStringLiteral("portabilityPlot"));
    plot_->plotLayout()->clear();
    const QFont title(font().family(), 10, QFont::Bold);
    plot_->plotLayout()->addElement(0, 0, new QCPTextElement(plot_, tr("Verdicts by kind (share, counts)"), title));
    plot_->plotLayout()->addElement(0, 1,
                                    new QCPTextElement(plot_, tr("Key components that differ (graph entries)"), title));
    for (int col = 0; col < 2; ++col) {
        auto* rect = new QCPAxisRect(plot_);
        plot_->plotLayout()->addElement(1, col, rect);
        rect->axis(QCPAxis::atLeft)->setRangeReversed(true);
        rect->axis(QCPAxis::atLeft)->grid()->setVisible(false);
    }
    plot_->plotLayout()->setColumnStretchFactors({1.2, 1.0});
    plot_->axisRect(0)->axis(QCPAxis::atBottom)->setLabel(tr("% of the kind's items"));
    plot_->axisRect(1)->axis(QCPAxis::atBottom)->setLabel(tr("graph entries"));
    followPalette(plot_, [this] {
        // hit, miss, unknown stacked on the left, then the differing components (misses) on the right
        const Verdict order[] = {Verdict::hit, Verdict::miss, Verdict::unknown, Verdict::miss};
        for (int i = 0; i < std::min(plot_->plottableCount(), 4); ++i)
            plot_->plottable(i)->setBrush(verdictColor(order[i], plot_->palette()));
    });
}

void PortabilityChart::setBars(const PortabilityBars& bars) {
    bars_ = bars;
    plot_->clearPlottables();
    auto* left = plot_->axisRect(0);
    QSharedPointer<QCPAxisTickerText> kindTicks(new QCPAxisTickerText);
    QCPBars* below = nullptr;
    for (Verdict v : {Verdict::hit, Verdict::miss, Verdict::unknown}) {
        auto* bar = new QCPBars(left->axis(QCPAxis::atLeft), left->axis(QCPAxis::atBottom));
        bar->setName(
            QString::fromUtf8(portability::verdict_name(v).data(), qsizetype(portability::verdict_name(v).size())));
        bar->setBrush(verdictColor(v, plot_->palette()));
        bar->setPen(Qt::NoPen);
        bar->setWidth(0.7);
        if (below) bar->moveAbove(below);
        below = bar;
        for (int i = 0; i < int(bars.kinds.size()); ++i) {
            const auto& k = bars.kinds[std::size_t(i)];
            const int n = v == Verdict::hit ? k.hit : v == Verdict::miss ? k.miss : k.unknown;
            bar->addData(i, k.total() ? 100.0 * n / k.total() : 0);
        }
    }
    for (int i = 0; i < int(bars.kinds.size()); ++i) {
        const auto& k = bars.kinds[std::size_t(i)];
        QStringList n;
        if (k.hit) n << tr("%1 hit").arg(k.hit);
        if (k.miss) n << tr("%1 miss").arg(k.miss);
        if (k.unknown) n << tr("%1 unknown").arg(k.unknown);
        kindTicks->addTick(i, QStringLiteral("%1\n%2").arg(k.label, n.join(QStringLiteral(" · "))));
    }
    left->axis(QCPAxis::atLeft)->setTicker(kindTicks);
    left->axis(QCPAxis::atLeft)->setRange(-0.6, std::max<double>(double(bars.kinds.size()), 1) - 0.4);
    left->axis(QCPAxis::atBottom)->setRange(0, 100);

    auto* right = plot_->axisRect(1);
    auto* comp = new QCPBars(right->axis(QCPAxis::atLeft), right->axis(QCPAxis::atBottom));
    comp->setBrush(verdictColor(Verdict::miss, plot_->palette()));
    comp->setPen(Qt::NoPen);
    comp->setWidth(0.6);
    QSharedPointer<QCPAxisTickerText> compTicks(new QCPAxisTickerText);
    int most = 1;
    for (int i = 0; i < int(bars.components.size()); ++i) {
        const auto& c = bars.components[std::size_t(i)];
        comp->addData(i, c.entries);
        compTicks->addTick(i, QStringLiteral("%1 (%2)").arg(c.component).arg(c.entries));
        most = std::max(most, c.entries);
    }
    if (bars.components.empty()) compTicks->addTick(0, tr("none: no key component differs"));
    right->axis(QCPAxis::atLeft)->setTicker(compTicks);
    right->axis(QCPAxis::atLeft)->setRange(-0.6, std::max<double>(double(bars.components.size()), 1) - 0.4);
    right->axis(QCPAxis::atBottom)->setRange(0, most * 1.1);
    QSharedPointer<QCPAxisTickerFixed> whole(new QCPAxisTickerFixed);
    whole->setTickStep(std::max(1, most / 5));
    whole->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    right->axis(QCPAxis::atBottom)->setTicker(whole);
    plot_->replot();
}

}  // namespace kiln::ui
