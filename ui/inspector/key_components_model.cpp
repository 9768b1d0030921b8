#include "ui/inspector/key_components_model.hpp"

#include <QFontDatabase>

namespace kiln::ui {

KeyComponentsModel::KeyComponentsModel(QObject* parent) : QAbstractTableModel(parent) {}

void KeyComponentsModel::setComponents(QVector<KeyComponentRow> components) {
    beginResetModel();
    rows_ = std::move(components);
    endResetModel();
}

int KeyComponentsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int KeyComponentsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant KeyComponentsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const KeyComponentRow& c = rows_[index.row()];
    if (role == Qt::FontRole && index.column() != NameColumn)
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (role == Qt::ToolTipRole) {
        if (index.column() != ValueColumn) return {};
        return c.binary ? tr("Not text: torch printed this value from bytes; those that are no character read "
                             "\\ufffd, control bytes \\xNN. Compare it by its hash.\n") +
                              c.value.left(20000)
                        : c.value.left(20000);
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case NameColumn: return c.name;
        case HashColumn: return c.hash;
        case ValueColumn: {
            const qsizetype nl = c.value.indexOf(QLatin1Char('\n'));
            const QString shown = nl < 0 ? c.value : c.value.left(nl) + QStringLiteral(" …");
            return c.binary ? tr("(binary) %1").arg(shown) : shown;
        }
        default: return {};
    }
}

QVariant KeyComponentsModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case NameColumn: return tr("Component");
        case HashColumn: return tr("Hash");
        case ValueColumn: return tr("Value");
        default: return {};
    }
}

}  // namespace kiln::ui
