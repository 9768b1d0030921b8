#include "ui/ranks/ranks_model.hpp"

#include <QFileInfo>
#include <QFont>
#include <QGuiApplication>
#include <QObject>
#include <QPalette>

#include "timings/timing_model.hpp"
#include "ui/common/qt_string.hpp"
#include "ui/theme/palette.hpp"

namespace kiln::ui {

using ranks::Effect;

namespace {

// internalId: 0 a section; 1..3 an item of section id-1; from 4 a detail row, (item << 2 | section) + 4.
constexpr quintptr kFirstDetailId = 4;

QString rankMsText(const std::optional<double>& ms) { return ms ? QString::number(*ms, 'f', 4) : QString(); }

QString kernelConfigsText(const std::vector<nlohmann::ordered_json>& configs, const QString& separator) {
    QStringList parts;
    for (const auto& c : configs) parts << qstr(timings::params_text(c));
    return parts.join(separator);
}

}  // namespace

QColor rankEffectColor(Effect e, const QPalette& palette) {
    const ThemeColors& c = themeColors(palette);
    switch (e) {
        case Effect::numerics: return c.error;
        case Effect::maybe_numerics: return c.warning;
        case Effect::speed: return c.ok;
        case Effect::none: return c.series[5];
    }
    return {};
}

QString rankEffectLegendHtml(const QPalette& palette) {
    QString html;
    for (Effect e : {Effect::numerics, Effect::maybe_numerics, Effect::speed, Effect::none})
        html += QStringLiteral("<span style='color:%1'>&#9679;</span> %2&nbsp;&nbsp; ")
                    .arg(rankEffectColor(e, palette).name(), QString::fromUtf8(ranks::effect_text(e)).toHtmlEscaped());
    return html;
}

QString rankEffectCounts(const std::vector<Effect>& effects) {
    QStringList parts;
    // Short: the column is narrow (the section's tooltip spells them out).
    const std::pair<Effect, const char*> names[] = {{Effect::numerics, QT_TR_NOOP("numerics")},
                                                    {Effect::maybe_numerics, QT_TR_NOOP("maybe")},
                                                    {Effect::speed, QT_TR_NOOP("speed")},
                                                    {Effect::none, QT_TR_NOOP("device index")}};
    for (const auto& [e, name] : names) {
        const auto n = std::count(effects.begin(), effects.end(), e);
        if (n) parts << QStringLiteral("%1 %2").arg(n).arg(QObject::tr(name));
    }
    return parts.join(QStringLiteral(" · "));
}

QString compactChoiceLabel(const std::string& label) {
    QString s = qstr(label);
    s.replace(QStringLiteral("(BLOCK "), QStringLiteral("("));
    s.replace(QStringLiteral(" stages"), QStringLiteral(" st"))
        .replace(QStringLiteral(" stage"), QStringLiteral(" st"));
    s.replace(QStringLiteral(" warps"), QStringLiteral(" w")).replace(QStringLiteral(" warp"), QStringLiteral(" w"));
    return s;
}

RanksModel::RanksModel(QObject* parent) : QAbstractItemModel(parent) {}

void RanksModel::setReport(std::shared_ptr<const ranks::RanksReport> report, int group) {
    beginResetModel();
    report_ = std::move(report);
    group_ = group;
    endResetModel();
}

const ranks::RankGroup* RanksModel::group() const {
    if (!report_ || group_ < 0 || group_ >= int(report_->groups.size())) return nullptr;
    return &report_->groups[std::size_t(group_)];
}

int RanksModel::rankCount() const {
    const auto* g = group();
    return g ? int(g->ranks.size()) : 0;
}

RanksModel::Node RanksModel::node(const QModelIndex& index) const {
    Node n;
    if (!index.isValid()) return n;
    const quintptr id = index.internalId();
    if (id == 0) {
        n.level = 0;
        n.section = index.row();
    } else if (id < kFirstDetailId) {
        n.level = 1;
        n.section = int(id - 1);
        n.item = index.row();
    } else {
        n.level = 2;
        n.section = int((id - kFirstDetailId) & 3);
        n.item = int((id - kFirstDetailId) >> 2);
        n.row = index.row();
    }
    return n;
}

QModelIndex RanksModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) return {};
    const Node p = node(parent);
    switch (p.level) {
        case -1: return createIndex(row, column, quintptr(0));
        case 0: return createIndex(row, column, quintptr(p.section + 1));
        case 1: return createIndex(row, column, kFirstDetailId + (quintptr(p.item) << 2 | quintptr(p.section)));
        default: return {};
    }
}

QModelIndex RanksModel::parent(const QModelIndex& child) const {
    const Node n = node(child);
    switch (n.level) {
        case 1: return createIndex(n.section, 0, quintptr(0));
        case 2: return createIndex(n.item, 0, quintptr(n.section + 1));
        default: return {};
    }
}

int RanksModel::rowCount(const QModelIndex& parent) const {
    const auto* g = group();
    if (!g || parent.column() > 0) return 0;
    const Node p = node(parent);
    switch (p.level) {
        case -1: return SectionCount;
        case 0:
            switch (p.section) {
                case OpsSection: return int(g->ops.differ.size());
                case KernelsSection: return int(g->kernels.differ.size());
                case GraphsSection: return int(g->graphs.differ.size());
            }
            return 0;
        case 1:
            if (p.section == OpsSection) return int(g->ops.differ[std::size_t(p.item)].competing.size());
            if (p.section == GraphsSection) {
                const auto& d = g->graphs.differ[std::size_t(p.item)];
                return int(d.components.size() + d.code.size());
            }
            return 0;
        default: return 0;
    }
}

int RanksModel::columnCount(const QModelIndex&) const { return FirstRankColumn + rankCount(); }

RanksModel::NodeKind RanksModel::kind(const Node& n) const {
    if (n.level == 0) return SectionNode;
    if (n.section == OpsSection) return n.level == 1 ? OpNode : ChoiceNode;
    if (n.section == KernelsSection) return KernelSetNode;
    if (n.level == 1) return GraphNode;
    const auto& d = group()->graphs.differ[std::size_t(n.item)];
    return n.row < int(d.components.size()) ? ComponentNode : CodeNode;
}

const ranks::Verdict* RanksModel::verdict(const Node& n) const {
    const auto* g = group();
    switch (kind(n)) {
        case OpNode: return &g->ops.differ[std::size_t(n.item)].verdict;
        case KernelSetNode: return &g->kernels.differ[std::size_t(n.item)].verdict;
        case GraphNode: return &g->graphs.differ[std::size_t(n.item)].verdict;
        case ComponentNode: return &g->graphs.differ[std::size_t(n.item)].components[std::size_t(n.row)].verdict;
        case CodeNode: {
            const auto& d = g->graphs.differ[std::size_t(n.item)];
            return &d.code[std::size_t(n.row) - d.components.size()].verdict;
        }
        default: return nullptr;
    }
}

bool RanksModel::isWinnerCell(const Node& n, int column) const {
    if (kind(n) != ChoiceNode || column < FirstRankColumn) return false;
    const auto& d = group()->ops.differ[std::size_t(n.item)];
    const auto r = std::size_t(column - FirstRankColumn);
    return r < d.winner.size() && d.winner[r] == n.row;
}

QVariant RanksModel::display(const Node& n, int column) const {
    const auto& g = *group();
    const int rank = column - FirstRankColumn;
    if (n.level == 0) {
        if (column == WhatColumn) {
            switch (n.section) {
                case OpsSection:
                    return tr("Autotuned ops: %1 of %2 differ").arg(g.ops.differ.size()).arg(g.ops.compared);
                case KernelsSection:
                    return tr(".best_config: %1 of %2 candidate sets differ")
                        .arg(g.kernels.differ.size())
                        .arg(g.kernels.sets);
                case GraphsSection:
                    return tr("Graph keys: %1 of %2 differ · output code: %3 of %4")
                        .arg(g.graphs.keys_differ)
                        .arg(g.graphs.keys)
                        .arg(g.graphs.modules_differ)
                        .arg(g.graphs.modules);
            }
        }
        if (column == EffectColumn) {
            std::vector<Effect> effects;
            for (int i = 0; i < rowCount(index(n.section, 0)); ++i)
                effects.push_back(verdict({1, n.section, i, 0})->effect);
            return rankEffectCounts(effects);
        }
        if (n.section == KernelsSection && rank >= 0 && std::size_t(rank) < g.kernels.kernels.size())
            return tr("%n file(s)", nullptr, int(g.kernels.kernels[std::size_t(rank)]));
        return {};
    }
    if (column == EffectColumn) {
        const auto* v = verdict(n);  // none for a choice of an op
        return v ? QVariant(QString::fromUtf8(ranks::effect_text(v->effect))) : QVariant();
    }
    switch (kind(n)) {
        case OpNode: {
            const auto& d = g.ops.differ[std::size_t(n.item)];
            if (column == WhatColumn)
                return QStringLiteral("%1(%2) [%3]").arg(qstr(d.op), qstr(d.inputs), qstr(d.precision));
            if (column == SpreadColumn) return QStringLiteral("%1%").arg(d.spread_pct, 0, 'f', 1);
            if (rank >= 0 && std::size_t(rank) < d.winner.size()) {
                const int w = d.winner[std::size_t(rank)];
                if (w < 0) return QStringLiteral("—");
                const auto& c = d.competing[std::size_t(w)];
                // Every choice of the op a config of one template family: the config alone says which.
                const auto family = c.label.substr(0, c.label.find(" ("));
                const bool oneFamily =
                    c.label.size() > family.size() &&
                    std::all_of(d.competing.begin(), d.competing.end(),
                                [&](const ranks::CompetingChoice& o) { return o.label.rfind(family + " (", 0) == 0; });
                const QString text = compactChoiceLabel(c.label);
                return oneFamily ? text.mid(text.indexOf(QLatin1Char('(')) + 1).chopped(1) : text;
            }
            return {};
        }
        case ChoiceNode: {
            const auto& c = g.ops.differ[std::size_t(n.item)].competing[std::size_t(n.row)];
            if (column == WhatColumn) return compactChoiceLabel(c.label);
            if (rank < 0 || std::size_t(rank) >= c.ms.size()) return {};
            const auto& ms = c.ms[std::size_t(rank)];
            if (!ms) return c.names[std::size_t(rank)].empty() ? QStringLiteral("—") : tr("failed");
            return isWinnerCell(n, column) ? QStringLiteral("★ ") + rankMsText(ms) : rankMsText(ms);
        }
        case KernelSetNode: {
            const auto& s = g.kernels.differ[std::size_t(n.item)];
            if (column == WhatColumn)
                return tr("configs_hash %1…, %n kernel(s) per rank", nullptr, int(s.per_rank))
                    .arg(qstr(s.configs_hash.substr(0, 8)));
            if (rank >= 0 && std::size_t(rank) < s.configs.size())
                return kernelConfigsText(s.configs[std::size_t(rank)], QStringLiteral(" | "));
            return {};
        }
        case GraphNode: {
            const auto& d = g.graphs.differ[std::size_t(n.item)];
            if (column == WhatColumn) {
                if (!d.device_index_only) return qstr(d.what);
                return d.kind == "key"
                           ? tr("%1 (%n key component(s) only by the device index)", nullptr, int(d.device_index_only))
                                 .arg(qstr(d.what))
                           : tr("%1 (%n kernel(s) or wrapper only by the device index)", nullptr,
                                int(d.device_index_only))
                                 .arg(qstr(d.what));
            }
            if (rank >= 0 && std::size_t(rank) < d.ids.size()) {
                const QString id = qstr(d.ids[std::size_t(rank)]);
                return d.kind == "output_code" ? QFileInfo(id).fileName() : id;
            }
            return {};
        }
        case ComponentNode: {
            const auto& c = g.graphs.differ[std::size_t(n.item)].components[std::size_t(n.row)];
            if (column == WhatColumn) return QStringLiteral("%1 [%2]").arg(qstr(c.component), qstr(c.kind));
            if (rank >= 0 && std::size_t(rank) < c.values.size()) return qstr(c.values[std::size_t(rank)]);
            return {};
        }
        case CodeNode: {
            const auto& d = g.graphs.differ[std::size_t(n.item)];
            const auto& c = d.code[std::size_t(n.row) - d.components.size()];
            if (column == WhatColumn) return QStringLiteral("%1 [%2]").arg(qstr(c.section), qstr(c.kind));
            if (rank >= 0 && std::size_t(rank) < c.values.size()) return qstr(c.values[std::size_t(rank)]);
            return {};
        }
        case SectionNode: return {};
    }
    return {};
}

QVariant RanksModel::toolTip(const Node& n, int column) const {
    const auto& g = *group();
    const int rank = column - FirstRankColumn;
    if (n.level == 0) {
        if (column == EffectColumn) {
            QStringList lines;
            for (int i = 0; i < rowCount(index(n.section, 0)); ++i) {
                const auto* v = verdict({1, n.section, i, 0});
                lines << QString::fromUtf8(ranks::effect_text(v->effect));
            }
            lines.removeDuplicates();
            return lines.join(QLatin1Char('\n'));
        }
        if (column == WhatColumn && n.section == GraphsSection)
            return tr("%1 of %2 graph cache keys differ; %3 of %4 output code modules differ (matched by AOT ID), %5 "
                      "of them only by the device index")
                .arg(g.graphs.keys_differ)
                .arg(g.graphs.keys)
                .arg(g.graphs.modules_differ)
                .arg(g.graphs.modules)
                .arg(g.graphs.modules_device_index_only);
        if (column == WhatColumn && n.section == OpsSection && !g.ops.not_on_every_rank.empty()) {
            QStringList lines;
            for (const auto& s : g.ops.not_on_every_rank) lines << tr("not on every rank: %1").arg(qstr(s));
            return lines.join(QLatin1Char('\n'));
        }
        return {};
    }
    if (n.level > 0 && column == EffectColumn) {
        const auto* v = verdict(n);
        if (!v) return {};
        return QStringLiteral("%1: %2").arg(QString::fromUtf8(ranks::effect_text(v->effect)), qstr(v->why));
    }
    switch (kind(n)) {
        case OpNode: {
            const auto& d = g.ops.differ[std::size_t(n.item)];
            if (column == WhatColumn)
                return tr("%1(%2)\nstrides %3\nprecision %4\ninputs key %5")
                    .arg(qstr(d.op), qstr(d.inputs), qstr(d.strides), qstr(d.precision), qstr(d.inputs_key));
            if (column == SpreadColumn)
                return tr("The largest, over the ranks, of the slowest competing choice's time over the fastest's");
            if (rank >= 0 && std::size_t(rank) < d.winner.size() && d.winner[std::size_t(rank)] >= 0) {
                const auto& c = d.competing[std::size_t(d.winner[std::size_t(rank)])];
                return tr("%1's winner: %2\n%3\n%4 ms")
                    .arg(qstr(g.ranks[std::size_t(rank)]), qstr(c.label), qstr(c.displays[std::size_t(rank)]),
                         rankMsText(c.ms[std::size_t(rank)]));
            }
            return {};
        }
        case ChoiceNode: {
            const auto& c = g.ops.differ[std::size_t(n.item)].competing[std::size_t(n.row)];
            if (column == WhatColumn) return qstr(c.label) + QLatin1Char('\n') + qstr(c.identity);
            if (rank >= 0 && std::size_t(rank) < c.names.size())
                return tr("%1: %2\ntiming cache name %3")
                    .arg(qstr(g.ranks[std::size_t(rank)]), qstr(c.displays[std::size_t(rank)]),
                         qstr(c.names[std::size_t(rank)]));
            return {};
        }
        case KernelSetNode: {
            const auto& s = g.kernels.differ[std::size_t(n.item)];
            if (column == WhatColumn) {
                QStringList keys;
                for (const auto& k : s.keys) keys << qstr(k);
                return tr("configs_hash %1\nkeys: %2\n%3")
                    .arg(qstr(s.configs_hash), keys.join(QStringLiteral(", ")),
                         s.one_per_rank ? tr("one kernel of this candidate set on every rank: the match is exact")
                                        : tr("several kernels of this candidate set per rank: which had which is "
                                             "not recorded"));
            }
            if (rank >= 0 && std::size_t(rank) < s.configs.size()) {
                QStringList files;
                for (const auto& f : s.files[std::size_t(rank)]) files << qstr(f);
                return kernelConfigsText(s.configs[std::size_t(rank)], QStringLiteral("\n")) + QStringLiteral("\n\n") +
                       files.join(QLatin1Char('\n'));
            }
            return {};
        }
        case GraphNode: {
            const auto& d = g.graphs.differ[std::size_t(n.item)];
            if (rank >= 0 && std::size_t(rank) < d.ids.size()) return qstr(d.ids[std::size_t(rank)]);
            return {};
        }
        case ComponentNode:
        case CodeNode: {
            if (rank < 0) return {};
            const QVariant v = display(n, column);
            return v.toString().isEmpty() ? QVariant() : v;
        }
        case SectionNode: return {};
    }
    return {};
}

QVariant RanksModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !group()) return {};
    const Node n = node(index);
    switch (role) {
        case Qt::DisplayRole: return display(n, index.column());
        case Qt::ToolTipRole: return toolTip(n, index.column());
        case Qt::DecorationRole:
            if (const auto* v = n.level > 0 && index.column() == EffectColumn ? verdict(n) : nullptr)
                return rankEffectColor(v->effect, QGuiApplication::palette());
            return {};
        case Qt::ForegroundRole:
            if (isWinnerCell(n, index.column())) return themeColors(QGuiApplication::palette()).winner;
            return {};
        case Qt::FontRole:
            if (n.level == 0 || isWinnerCell(n, index.column())) {
                QFont f;
                f.setBold(true);
                return f;
            }
            return {};
        case EffectRole: {
            if (n.level > 0) {
                const auto* v = verdict(n);
                return v ? QVariant(int(v->effect)) : QVariant();
            }
            Effect worst = Effect::none;
            for (int i = 0; i < rowCount(this->index(n.section, 0)); ++i)
                worst = ranks::worse(worst, verdict({1, n.section, i, 0})->effect);
            return int(worst);
        }
        case NodeKindRole: return int(kind(n));
        case WinnerRole: return isWinnerCell(n, index.column());
        default: return {};
    }
}

QVariant RanksModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return {};
    const auto* g = group();
    const int rank = section - FirstRankColumn;
    if (role == Qt::DisplayRole) {
        switch (section) {
            case WhatColumn: return tr("Where the ranks differ");
            case EffectColumn: return tr("Effect");
            case SpreadColumn: return tr("Spread");
            default:
                if (g && rank >= 0 && std::size_t(rank) < g->ranks.size()) return qstr(g->ranks[std::size_t(rank)]);
                return {};
        }
    }
    if (role == Qt::ToolTipRole && g && rank >= 0 && std::size_t(rank) < g->members.size() && report_) {
        const auto& r = report_->ranks[g->members[std::size_t(rank)]];
        return tr("%1\nroot %2\ntiming cache %3").arg(qstr(r.folder), qstr(r.root), qstr(r.timing_cache));
    }
    return {};
}

}  // namespace kiln::ui
