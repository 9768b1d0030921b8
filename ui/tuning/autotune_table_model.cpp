#include "ui/tuning/autotune_table_model.hpp"

#include <QFont>
#include <QPalette>
#include <QStringList>

#include <limits>

#include "timings/ranking.hpp"
#include "ui/charts/choice_bars.hpp"
#include "ui/common/qt_string.hpp"

namespace kiln::ui {

namespace {
// Op rows have internal id 0; a choice row carries its op's index + 1.
constexpr quintptr kOpRow = 0;
QString msText(double ms) { return QString::number(ms, 'f', 4) + QStringLiteral(" ms"); }
}  // namespace

AutotuneTableModel::AutotuneTableModel(QObject* parent) : QAbstractItemModel(parent) {}

void AutotuneTableModel::setTimings(std::shared_ptr<const timings::TimingSet> set) {
    beginResetModel();
    set_ = std::move(set);
    endResetModel();
}

QModelIndex AutotuneTableModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) return {};
    if (!parent.isValid()) return createIndex(row, column, kOpRow);
    return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex AutotuneTableModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kOpRow) return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kOpRow);
}

int AutotuneTableModel::rowCount(const QModelIndex& parent) const {
    if (!set_) return 0;
    if (!parent.isValid()) return static_cast<int>(set_->ops.size());
    if (parent.internalId() != kOpRow || parent.column() != 0) return 0;
    return static_cast<int>(set_->ops[static_cast<size_t>(parent.row())].choices.size());
}
int AutotuneTableModel::columnCount(const QModelIndex&) const { return ColumnCount; }

const timings::Op* AutotuneTableModel::opAt(const QModelIndex& index) const {
    if (!index.isValid() || !set_) return nullptr;
    const int op = index.internalId() == kOpRow ? index.row() : static_cast<int>(index.internalId() - 1);
    return &set_->ops[static_cast<size_t>(op)];
}

const timings::Choice* AutotuneTableModel::choiceAt(const QModelIndex& index) const {
    if (!index.isValid() || index.internalId() == kOpRow) return nullptr;
    return &opAt(index)->choices[static_cast<size_t>(index.row())];
}

std::optional<double> AutotuneTableModel::percentOfBest(const timings::Op& op, const timings::Choice& c) {
    return timings::percent_of_best(op, c);
}

namespace {
// "mm (model.py:94) forward float16[512, 512], ..." -> "mm (model.py:94)": the function and line say
// which graph; the inputs are in the tooltip.
QString shortGraphName(const timings::GraphUse& u) {
    const std::string& n = u.name.empty() ? u.key : u.name;
    const auto close = n.find(')');
    return qstr(close == std::string::npos ? n : n.substr(0, close + 1));
}
}  // namespace

QString AutotuneTableModel::usedByText(const timings::Choice& c) {
    if (c.used_by.empty()) return {};
    if (c.used_by.size() == 1) return tr("used by graph %1").arg(shortGraphName(c.used_by.front()));
    QStringList names;
    for (const auto& u : c.used_by) names << shortGraphName(u);
    names.removeDuplicates();
    return tr("used by %1 graphs: %2").arg(c.used_by.size()).arg(names.join(QStringLiteral(", ")));
}

QString AutotuneTableModel::opHeading(const timings::Op& op) {
    QStringList said{qstr(op.op) + QStringLiteral("  ") + qstr(op.inputs)};
    if (!op.precision.empty()) said << qstr(op.precision);
    if (!op.device.empty()) said << qstr(op.device);
    if (op.choices.size() != 1) said << tr("%1 choices").arg(op.choices.size());
    QString text = said.join(QStringLiteral(" · "));
    const auto r = timings::rank_choices(op);
    if (r.best) {
        text += tr(" — best %1 %2").arg(choiceLabel(*r.best), msText(*r.best->ms));
        if (r.margin_pct) text += tr(", %1% ahead of %2").arg(*r.margin_pct, 0, 'f', 1).arg(choiceLabel(*r.next));
    } else if (timings::is_per_kernel_config(op)) {
        text += tr(" — per-kernel config (.best_config): what the kernel settled on, not a benchmark");
    } else if (!op.choices.empty()) {
        text += tr(" — no choice has a time");
    }
    // What the compiled graphs run, which need not be the winner of the op-only benchmark.
    for (const auto& c : op.choices)
        if (!c.used_by.empty()) text += tr("; %1 %2").arg(choiceLabel(c), usedByText(c));
    return text;
}

QVariant AutotuneTableModel::opData(int o, int column, int role) const {
    const auto& op = set_->ops[static_cast<size_t>(o)];
    switch (role) {
        case Qt::DisplayRole: return column == ChoiceCol ? opHeading(op) : QVariant();
        case SortRole: return o;  // groups keep the sources' order whatever the column (the proxy undoes descending)
        case Qt::ToolTipRole: {
            QStringList lines{tr("Op: %1").arg(qstr(op.op)), tr("Inputs: %1").arg(qstr(op.inputs))};
            if (!op.precision.empty()) lines << tr("Precision: %1").arg(qstr(op.precision));
            if (!op.device.empty()) lines << tr("Device: %1").arg(qstr(op.device));
            const auto r = timings::rank_choices(op);
            if (r.best) lines << tr("Best: %1 (%2)").arg(qstr(r.best->name), msText(*r.best->ms));
            if (r.next) lines << tr("Runner-up: %1 (%2)").arg(qstr(r.next->name), msText(*r.next->ms));
            if (r.margin_pct) lines << tr("The runner-up is %1% slower").arg(*r.margin_pct, 0, 'f', 2);
            lines << tr("From %1").arg(qstr(op.source));
            return lines.join(QLatin1Char('\n'));
        }
        case Qt::FontRole: {
            QFont f;
            f.setBold(true);
            return f;
        }
        case OpIndexRole: return o;
        case IsOpRole: return true;
        case IsBestRole: return false;
        case OpNameRole: return qstr(op.op);
        case InputsRole: return qstr(op.inputs);
        case PrecisionRole: return qstr(op.precision);
        case DeviceRole: return qstr(op.device);
        case MarginRole: {
            const auto r = timings::rank_choices(op);
            return r.margin_pct ? QVariant(*r.margin_pct) : QVariant();
        }
    }
    return {};
}

QVariant AutotuneTableModel::choiceData(int o, int ci, int column, int role) const {
    const auto& op = set_->ops[static_cast<size_t>(o)];
    const auto& c = op.choices[static_cast<size_t>(ci)];
    const bool best = c.name == op.best;
    const bool config = timings::is_per_kernel_config(op);  // settled on, not benchmarked: never "failed"
    auto pct = percentOfBest(op, c);
    switch (role) {
        case Qt::DisplayRole:
            switch (column) {
                case ChoiceCol: return (best ? QStringLiteral("★ ") : QString()) + choiceLabel(c);
                case MsCol: return c.ms ? QString::number(*c.ms, 'f', 4) : config ? tr("config") : tr("failed");
                case PercentCol: return pct ? QString::number(*pct, 'f', 1) + QLatin1Char('%') : QString();
                case UsedByCol: return usedByText(c);
                case ParamsCol: return qstr(timings::params_text_by_importance(c.params));
            }
            break;
        case SortRole:
            if (column == MsCol) return c.ms ? *c.ms : std::numeric_limits<double>::infinity();
            if (column == PercentCol) return pct.value_or(-1.0);
            if (column == ChoiceCol) return qstr(c.name);
            return choiceData(o, ci, column, Qt::DisplayRole);
        case Qt::ToolTipRole: {
            if (!c.error.empty()) return qstr(c.name) + QLatin1Char('\n') + qstr(c.error);
            if (column == ChoiceCol)
                return c.module_path->empty() ? qstr(c.name) : qstr(c.name) + QLatin1Char('\n') + qstr(*c.module_path);
            if (column == MsCol && c.ms) return QString::number(*c.ms, 'g', 17) + tr(" ms");
            if (column == UsedByCol && !c.used_by.empty()) {
                QStringList lines;  // which graph entries launch it, as which kernel
                for (const auto& u : c.used_by)
                    lines << tr("Graph %1\nkey %2\nlaunches %3").arg(qstr(u.name), qstr(u.key), qstr(u.kernel));
                return lines.join(QStringLiteral("\n\n"));
            }
            if (column == ChoiceCol && !c.aliases.empty()) {
                QStringList lines{qstr(c.name)};
                for (const auto& a : c.aliases) lines << tr("also %1").arg(qstr(a));
                if (!c.module_path->empty()) lines << qstr(*c.module_path);
                return lines.join(QLatin1Char('\n'));
            }
            if (column == ParamsCol) {
                QStringList lines;  // the whole text, one parameter a line
                for (const auto& k : timings::params_by_importance(c.params)) {
                    nlohmann::ordered_json one = nlohmann::ordered_json::object();
                    one[k] = c.params->at(k);
                    lines << qstr(timings::params_text(one));
                }
                return lines.join(QLatin1Char('\n'));
            }
            return choiceData(o, ci, column, Qt::DisplayRole);
        }
        case Qt::FontRole:
            if (best) {
                QFont f;
                f.setBold(true);
                return f;
            }
            break;
        case Qt::ForegroundRole:
            if (!c.ms && !config) return QPalette().brush(QPalette::Disabled, QPalette::Text);
            break;
        case Qt::TextAlignmentRole:
            if (column == MsCol || column == PercentCol) return int(Qt::AlignRight | Qt::AlignVCenter);
            break;
        case OpIndexRole: return o;
        case IsOpRole: return false;
        case ModulePathRole: return qstr(*c.module_path);
        case IsBestRole: return best;
        case ErrorRole: return qstr(c.error);
        case NameRole: return qstr(c.name);
        case UsedByRole: {
            QStringList keys;
            for (const auto& u : c.used_by) keys << qstr(u.key);
            return keys;
        }
        case ParamKeysRole: {
            QStringList keys;
            for (const auto& k : timings::params_by_importance(c.params)) keys << qstr(k);
            return keys;
        }
    }
    return {};
}

QVariant AutotuneTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    if (index.internalId() == kOpRow) return opData(index.row(), index.column(), role);
    return choiceData(static_cast<int>(index.internalId() - 1), index.row(), index.column(), role);
}

QVariant AutotuneTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractItemModel::headerData(section, o, role);
    switch (section) {
        case ChoiceCol: return tr("Op / choice");
        case MsCol: return tr("ms");
        case PercentCol: return tr("% of best");
        case UsedByCol: return tr("Run by");
        case ParamsCol: return tr("Parameters (tile sizes, warps, stages first)");
    }
    return {};
}

}  // namespace kiln::ui
