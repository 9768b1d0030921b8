#include "tuning/autotune_table_model.hpp"

#include <QBrush>
#include <QFont>
#include <QPalette>

#include <limits>

namespace kiln::ui {

AutotuneTableModel::AutotuneTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void AutotuneTableModel::setTimings(std::shared_ptr<const timings::TimingSet> set) {
    beginResetModel();
    set_ = std::move(set);
    rows_.clear();
    if (set_) {
        for (int o = 0; o < static_cast<int>(set_->ops.size()); ++o)
            for (int c = 0; c < static_cast<int>(set_->ops[static_cast<size_t>(o)].choices.size()); ++c)
                rows_.emplace_back(o, c);
    }
    endResetModel();
}

int AutotuneTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int AutotuneTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

const timings::Op* AutotuneTableModel::opAt(int row) const {
    if (row < 0 || row >= static_cast<int>(rows_.size())) return nullptr;
    return &set_->ops[static_cast<size_t>(rows_[static_cast<size_t>(row)].first)];
}

const timings::Choice* AutotuneTableModel::choiceAt(int row) const {
    const auto* op = opAt(row);
    return op ? &op->choices[static_cast<size_t>(rows_[static_cast<size_t>(row)].second)] : nullptr;
}

std::optional<double> AutotuneTableModel::percentOfBest(const timings::Op& op, const timings::Choice& c) {
    auto best = timings::best_ms(op);
    if (!best || !c.ms || *c.ms <= 0) return std::nullopt;
    return 100.0 * *best / *c.ms;
}

QVariant AutotuneTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const auto& op = *opAt(index.row());
    const auto& c = *choiceAt(index.row());
    const bool best = c.name == op.best;
    auto pct = percentOfBest(op, c);
    switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
                case OpCol: return QString::fromStdString(op.op);
                case InputsCol: return QString::fromStdString(op.inputs);
                case PrecisionCol: return QString::fromStdString(op.precision);
                case DeviceCol: return QString::fromStdString(op.device);
                case ChoiceCol: return QString::fromStdString(c.name);
                case MsCol: return c.ms ? QString::number(*c.ms, 'f', 4) : tr("failed");
                case PercentCol: return pct ? QString::number(*pct, 'f', 1) + QLatin1Char('%') : QString();
                case ParamsCol: return QString::fromStdString(timings::params_text(c.params));
            }
            break;
        case SortRole:
            if (index.column() == MsCol) return c.ms ? *c.ms : std::numeric_limits<double>::infinity();
            if (index.column() == PercentCol) return pct.value_or(-1.0);
            return data(index, Qt::DisplayRole);
        case Qt::ToolTipRole:
            if (!c.error.empty()) return QString::fromStdString(c.error);
            if (index.column() == ChoiceCol && !c.module_path.empty()) return QString::fromStdString(c.module_path);
            if (index.column() == MsCol && c.ms) return QString::number(*c.ms, 'g', 17) + tr(" ms");
            return data(index, Qt::DisplayRole);
        case Qt::FontRole:
            if (best) {
                QFont f;
                f.setBold(true);
                return f;
            }
            break;
        case Qt::ForegroundRole:
            if (!c.ms) return QPalette().brush(QPalette::Disabled, QPalette::Text);
            break;
        case Qt::TextAlignmentRole:
            if (index.column() == MsCol || index.column() == PercentCol) return int(Qt::AlignRight | Qt::AlignVCenter);
            break;
        case OpIndexRole: return rows_[static_cast<size_t>(index.row())].first;
        case ModulePathRole: return QString::fromStdString(c.module_path);
        case IsBestRole: return best;
        case ErrorRole: return QString::fromStdString(c.error);
    }
    return {};
}

QVariant AutotuneTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
    switch (section) {
        case OpCol: return tr("Op");
        case InputsCol: return tr("Inputs");
        case PrecisionCol: return tr("Precision");
        case DeviceCol: return tr("Device");
        case ChoiceCol: return tr("Choice");
        case MsCol: return tr("ms");
        case PercentCol: return tr("% of best");
        case ParamsCol: return tr("Parameters");
    }
    return {};
}

}  // namespace kiln::ui
