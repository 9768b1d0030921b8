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
    QVector<QString> labels;  // axis labels: choiceLabel
    QVector<double> ms;
    QVector<QString> tooltips;  // name, ms, % of best, parameters, module
    QVector<QString> modules;   // kernel module path or ""
    int winner = -1;            // index into the vectors (0 when any choice has a time)
    QStringList failed;         // "name: reason"
    QString note;               // a per-kernel config (.best_config): what it settled on; nothing failed
};

ChoiceBars choiceBars(const timings::Op& op);
// The choice's one name (timings::choice_display_name): "triton_mm_4 (BLOCK 64×32×128, 5 stages, 4 warps)".
QString choiceLabel(const timings::Choice& c);
// A per-kernel config's settings and how it was found: "XBLOCK 512, 1 stage, 4 warps (coordinate descent)".
QString choiceConfigText(const timings::Choice& c);
ChartTable choiceBarsTable(const ChoiceBars& bars);

}  // namespace kiln::ui
