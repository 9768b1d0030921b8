#include "ui/remote/remote_model.hpp"

#include <QBrush>
#include <QColor>
#include <QLocale>

#include "ui/theme/palette.hpp"

namespace kiln::ui {
namespace {

QString sizeText(std::uint64_t bytes) {
    return QLocale().formattedDataSize(static_cast<qint64>(bytes), 1, QLocale::DataSizeSIFormat);
}

}  // namespace

RemoteModel::RemoteModel(QObject* parent) : QAbstractItemModel(parent) {}

void RemoteModel::setListing(RemoteListing listing) {
    beginResetModel();
    listing_ = std::move(listing);
    endResetModel();
}

QModelIndex RemoteModel::index(int row, int column, const QModelIndex& parent) const {
    if (column < 0 || column >= ColumnCount || row < 0) return {};
    if (!parent.isValid()) return row < listing_.groups.size() ? createIndex(row, column, quintptr(0)) : QModelIndex();
    if (parent.internalId() != 0) return {};
    const int g = parent.row();
    if (g >= listing_.groups.size() || row >= listing_.groups[g].rows.size()) return {};
    return createIndex(row, column, quintptr(g + 1));
}

QModelIndex RemoteModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == 0) return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int RemoteModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) return listing_.groups.size();
    if (parent.internalId() != 0 || parent.column() != 0) return 0;
    return listing_.groups[parent.row()].rows.size();
}

int RemoteModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant RemoteModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    if (index.internalId() == 0) {
        const RemoteGroup& g = listing_.groups[index.row()];
        if (role == CacheIdRole) return g.cacheId;
        if (role != Qt::DisplayRole) return {};
        switch (index.column()) {
            case KeyColumn: return QStringLiteral("%1 (%2)").arg(g.cacheId).arg(g.rows.size());
            case SizeColumn: return sizeText(g.bytes);
            default: return {};
        }
    }
    const RemoteGroup& g = listing_.groups[static_cast<int>(index.internalId() - 1)];
    const RemoteRow& r = g.rows[index.row()];
    switch (role) {
        case RedisKeyRole: return r.redisKey;
        case StateRole: return r.state;
        case CacheIdRole: return g.cacheId;
        case Qt::ToolTipRole: return r.problem.isEmpty() ? r.redisKey : r.redisKey + QStringLiteral("\n") + r.problem;
        case Qt::ForegroundRole:
            return r.state == QLatin1String("corrupt") || r.state == QLatin1String("missing")
                       ? QVariant(QBrush(themeColors().error))
                       : QVariant();
        case Qt::DisplayRole:
            switch (index.column()) {
                case KeyColumn: return r.key;
                case StateColumn: return r.state;
                case SizeColumn: return sizeText(r.bytes);
                case TimeColumn: return r.timeTakenMs < 0 ? QString() : QStringLiteral("%1 ms").arg(r.timeTakenMs);
                default: return {};
            }
        default: return {};
    }
}

QVariant RemoteModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case KeyColumn: return tr("Key");
        case StateColumn: return tr("State");
        case SizeColumn: return tr("Size");
        case TimeColumn: return tr("Compile time");
        default: return {};
    }
}

}  // namespace kiln::ui
