#include "ui/source/hex_model.hpp"

#include <QFontDatabase>

namespace kiln::ui {

HexModel::HexModel(QObject* parent) : QAbstractTableModel(parent) {}

void HexModel::setBytes(QByteArray bytes) {
    beginResetModel();
    bytes_ = std::move(bytes);
    endResetModel();
}

int HexModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid()) return 0;
    return static_cast<int>((bytes_.size() + kBytesPerRow - 1) / kBytesPerRow);
}

int HexModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant HexModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    if (role == Qt::FontRole) return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    const qint64 start = qint64(index.row()) * kBytesPerRow;
    const qint64 n = std::min<qint64>(kBytesPerRow, bytes_.size() - start);
    switch (index.column()) {
        case OffsetColumn: return QStringLiteral("%1").arg(start, 8, 16, QLatin1Char('0'));
        case HexColumn: {
            QString s;
            s.reserve(kBytesPerRow * 3 + 1);
            for (qint64 i = 0; i < n; ++i) {
                if (i == 8) s += QLatin1Char(' ');
                s += QStringLiteral("%1 ").arg(uint(static_cast<unsigned char>(bytes_[start + i])), 2, 16,
                                               QLatin1Char('0'));
            }
            return s.trimmed();
        }
        case TextColumn: {
            QString s;
            s.reserve(kBytesPerRow);
            for (qint64 i = 0; i < n; ++i) {
                const auto c = static_cast<unsigned char>(bytes_[start + i]);
                s += (c >= 0x20 && c < 0x7f) ? QChar(c) : QLatin1Char('.');
            }
            return s;
        }
        default: return {};
    }
}

QVariant HexModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case OffsetColumn: return tr("Offset");
        case HexColumn: return tr("Bytes");
        case TextColumn: return tr("Text");
        default: return {};
    }
}

}  // namespace kiln::ui
