#include "ui/tuning/op_list_texts.hpp"

#include <QCoreApplication>
#include <QSet>

#include "timings/ranking.hpp"
#include "ui/charts/choice_bars.hpp"
#include "ui/tuning/autotune_table_model.hpp"

namespace kiln::ui {

namespace {
// The Autotune view's words (its translation context).
QString trPanel(const char* text) { return QCoreApplication::translate("kiln::ui::TimingsPanel", text); }

QString opLine(const timings::Op& op) {
    const auto rank = timings::rank_choices(op);
    QString text = QString::fromStdString(op.op + "  " + op.inputs);
    if (!op.device.empty()) text += QStringLiteral("\n  ") + QString::fromStdString(op.device);
    if (timings::is_per_kernel_config(op))  // a kernel's settled config, not a benchmark of choices
        text += trPanel("\n  per-kernel config: %1")
                    .arg(op.choices.empty() ? QString() : choiceConfigText(op.choices.front()));
    else text += op.choices.size() == 1 ? trPanel("\n  1 choice") : trPanel("\n  %1 choices").arg(op.choices.size());
    if (rank.best) text += trPanel(", best %1 ms").arg(*rank.best->ms, 0, 'g', 4);
    if (rank.margin_pct) text += trPanel(" (%1% ahead)").arg(*rank.margin_pct, 0, 'f', 1);
    return text;
}
}  // namespace

OpListTexts opListTexts(const timings::TimingSet& set) {
    OpListTexts out;
    out.ops.reserve(static_cast<qsizetype>(set.ops.size()));
    QSet<QString> seen;
    for (const auto& op : set.ops) {
        out.ops << opLine(op);
        for (const auto& c : op.choices) {
            if (c.used_by.empty()) continue;
            QString used = AutotuneTableModel::usedByText(c);
            if (!seen.contains(used)) {
                seen.insert(used);
                out.usedBy << std::move(used);
            }
        }
    }
    return out;
}

}  // namespace kiln::ui
