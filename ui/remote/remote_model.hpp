#pragma once
// The Redis panel's tree: cache id › key, columns Key, State, Size, Compile time. Reset whole
// from a RemoteListing (value type built off the UI thread).
#include <QAbstractItemModel>

#include "ui/remote/remote_listing.hpp"

namespace kiln::ui {

class RemoteModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { KeyColumn, StateColumn, SizeColumn, TimeColumn, ColumnCount };
    enum Role { RedisKeyRole = Qt::UserRole + 1, StateRole, CacheIdRole };

    explicit RemoteModel(QObject* parent = nullptr);
    void setListing(RemoteListing listing);
    const RemoteListing& listing() const { return listing_; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // internalId: 0 for a group; group index + 1 for a row (the row's position is the index's row).
    RemoteListing listing_;
};

}  // namespace kiln::ui
