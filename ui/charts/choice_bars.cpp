#include "ui/charts/choice_bars.hpp"

#include <QObject>

#include <algorithm>
#include <numeric>

#include "timings/choice_name.hpp"
#include "timings/ranking.hpp"

namespace kiln::ui {

QString choiceLabel(const timings::Choice& c) { return QString::fromStdString(timings::choice_display_name(c)); }

QString choiceConfigText(const timings::Choice& c) {
    QString text = QString::fromStdString(timings::config_summary(c.params));
    if (c.params->is_object() && c.params->contains("found_by_coordesc"))
        text += c.params->value("found_by_coordesc", false) ? QObject::tr(" (coordinate descent)")
                                                            : QObject::tr(" (autotuning)");
    return text;
}

ChoiceBars choiceBars(const timings::Op& op) {
    ChoiceBars b;
    b.title = QString::fromStdString(op.op + "  " + op.inputs + (op.device.empty() ? "" : "  on " + op.device));
    if (timings::is_per_kernel_config(op)) {
        // The config a kernel settled on: nothing was benchmarked against it, nothing failed.
        QStringList configs;
        for (const auto& c : op.choices) configs << choiceConfigText(c);
        b.note = QObject::tr("Per-kernel config (.best_config), not a benchmark of choices: %1")
                     .arg(configs.join(QStringLiteral("; ")));
        return b;
    }
    std::vector<size_t> order;
    for (size_t i = 0; i < op.choices.size(); ++i) {
        const auto& c = op.choices[i];
        if (c.ms) order.push_back(i);
        else b.failed << choiceLabel(c) + QString::fromStdString(": " + (c.error.empty() ? "no time" : c.error));
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return *op.choices[x].ms < *op.choices[y].ms; });
    auto best = timings::best_ms(op);
    for (size_t i : order) {
        const auto& c = op.choices[i];
        if (c.name == op.best) b.winner = static_cast<int>(b.names.size());
        b.names << QString::fromStdString(c.name);
        b.labels << choiceLabel(c);
        b.ms << *c.ms;
        b.modules << QString::fromStdString(c.module_path);
        QString tip = QStringLiteral("<b>%1</b><br>%2<br>%3 ms")
                          .arg(choiceLabel(c).toHtmlEscaped(), QString::fromStdString(c.name).toHtmlEscaped())
                          .arg(*c.ms, 0, 'g', 6);
        if (best && *c.ms > 0) tip += QStringLiteral(" (%1% of best)").arg(100.0 * *best / *c.ms, 0, 'f', 1);
        if (!c.params->empty())
            tip += QStringLiteral("<br>") +
                   QString::fromStdString(timings::params_text_by_importance(c.params)).toHtmlEscaped();
        if (!c.module_path->empty())
            tip += QStringLiteral("<br><i>%1</i>").arg(QString::fromStdString(c.module_path).toHtmlEscaped());
        b.tooltips << tip;
    }
    return b;
}

ChartTable choiceBarsTable(const ChoiceBars& bars) {
    ChartTable t;
    t.title = bars.title;
    t.header = {QStringLiteral("rank"), QStringLiteral("choice"), QStringLiteral("ms"), QStringLiteral("winner"),
                QStringLiteral("module")};
    for (int i = 0; i < bars.names.size(); ++i)
        t.rows.push_back({QString::number(i + 1), bars.names[i], QString::number(bars.ms[i], 'g', 17),
                          i == bars.winner ? QStringLiteral("yes") : QStringLiteral("no"), bars.modules[i]});
    return t;
}

}  // namespace kiln::ui
