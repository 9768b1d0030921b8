#pragma once
// The bar chart's data for one op: choices with a time, fastest first, the winner marked, and
// the failed ones listed apart with their reason. Pure data (no widgets), so tests can check it
// against the autotune table.
#include <QString>
#include <QStringList>
#include <QVector>

#include "timings/timing_model.hpp"
#include "ui/charts/chart_table.hpp"

namespace kiln::ui {

struct ChoiceBars {
    QString title;            // "mm 512x512 float16, ... on <device>"
    QVector<QString> names;   // full choice names, fastest first
    QVector<QString> labels;  // short axis labels
    QVector<double> ms;
    QVector<QString> tooltips;  // name, ms, % of best, parameters, module
    QVector<QString> modules;   // kernel module path or ""
    int winner = -1;            // index into the vectors (0 when any choice has a time)
    QStringList failed;         // "name: reason"
};

ChoiceBars choiceBars(const timings::Op& op);
// "triton_mm-cy2dwohf74kn..." -> "triton_mm-cy2dwo"; names without a key are kept.
QString shortChoiceLabel(const std::string& name);
ChartTable choiceBarsTable(const ChoiceBars& bars);

}  // namespace kiln::ui
