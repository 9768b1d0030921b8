#include "ui/inspector/opcode_model.hpp"

#include <QFontDatabase>

namespace kiln::ui {

OpcodeModel::OpcodeModel(QObject* parent) : QAbstractTableModel(parent) {}

void OpcodeModel::setOps(std::shared_ptr<const std::vector<pickle::DisassembledOp>> ops) {
    beginResetModel();
    ops_ = std::move(ops);
    endResetModel();
}

int OpcodeModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !ops_ ? 0 : static_cast<int>(ops_->size());
}

int OpcodeModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant OpcodeModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    if (role == Qt::FontRole) return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    const pickle::DisassembledOp& op = (*ops_)[static_cast<std::size_t>(index.row())];
    switch (index.column()) {
        case OffsetColumn: return QVariant::fromValue<qulonglong>(op.offset);
        case OpcodeColumn: return QString(op.depth * 2, QLatin1Char(' ')) + QString::fromLatin1(op.name);
        case ArgumentColumn: return QString::fromStdString(op.arg);
        default: return {};
    }
}

QVariant OpcodeModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case OffsetColumn: return tr("Offset");
        case OpcodeColumn: return tr("Opcode");
        case ArgumentColumn: return tr("Argument");
        default: return {};
    }
}

}  // namespace kiln::ui
