#pragma once
// The summary of `kiln-cli portable` as a chart: per kind of item, the share that would hit, miss
// or is unknown (stacked bars labelled with the counts), and per differing key component the
// number of graph entries it makes miss. The data is a value (PortabilityBars) the tests check
// against the report.
#include <QString>
#include <QWidget>

#include <vector>

#include "portability/portable.hpp"

class QCustomPlot;

namespace kiln::ui {

struct PortabilityBars {
    struct Kind {
        QString label;  // "FX graph entries"
        int hit = 0, miss = 0, unknown = 0;
        int total() const { return hit + miss + unknown; }
    };
    struct Component {
        QString component;
        int entries = 0;  // graph entries where it differs
    };
    std::vector<Kind> kinds;  // kinds with at least one item, in the report's order
    std::vector<Component> components;
};

PortabilityBars portabilityBars(const portability::PortableSummary& summary);
QString itemKindTitle(portability::ItemKind k);

class PortabilityChart : public QWidget {
    Q_OBJECT
public:
    explicit PortabilityChart(QWidget* parent = nullptr);
    void setBars(const PortabilityBars& bars);
    const PortabilityBars& bars() const { return bars_; }
    QCustomPlot* plot() const { return plot_; }

private:
    QCustomPlot* plot_;
    PortabilityBars bars_;
};

}  // namespace kiln::ui
