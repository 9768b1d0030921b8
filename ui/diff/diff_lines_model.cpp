#include "ui/diff/diff_lines_model.hpp"

#include <QColor>
#include <QFontDatabase>

#include "ui/theme/palette.hpp"

namespace kiln::ui {

DiffLinesModel::DiffLinesModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiffLinesModel::setLines(QVector<SideBySideLine> lines) {
    beginResetModel();
    lines_ = std::move(lines);
    endResetModel();
}

int DiffLinesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(lines_.size());
}
int DiffLinesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiffLinesModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const SideBySideLine& d = lines_[index.row()];
    const bool sideA = index.column() <= TextAColumn;
    switch (role) {
        case Qt::DisplayRole:
            switch (index.column()) {
                case LineAColumn: return d.lineA ? QVariant(d.lineA) : QVariant();
                case TextAColumn: return d.a;
                case LineBColumn: return d.lineB ? QVariant(d.lineB) : QVariant();
                case TextBColumn: return d.b;
            }
            return {};
        case Qt::FontRole: return QFontDatabase::systemFont(QFontDatabase::FixedFont);
        case Qt::BackgroundRole: {
            const bool removedSide =
                sideA && (d.kind == SideBySideLine::Kind::removed || d.kind == SideBySideLine::Kind::changed);
            const bool addedSide =
                !sideA && (d.kind == SideBySideLine::Kind::added || d.kind == SideBySideLine::Kind::changed);
            const ThemeColors& c = themeColorsFor(dark_);
            if (removedSide) return c.diffRemoved;
            if (addedSide) return c.diffAdded;
            if (d.kind != SideBySideLine::Kind::same) return c.diffChanged;
            return {};
        }
        default: return {};
    }
}

QVariant DiffLinesModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case LineAColumn: return QStringLiteral("#");
        case TextAColumn: return tr("A");
        case LineBColumn: return QStringLiteral("#");
        case TextBColumn: return tr("B");
        default: return {};
    }
}

}  // namespace kiln::ui
