#pragma once
// Filtering and sorting of the cache tree: a node matches when every word of the filter is a
// substring of its path, key or (for groups) its files' names, e.g. a Triton kernel name.
// Parents of matches stay visible (recursive filtering); sorting uses the model's SortRole.
#include <QSortFilterProxyModel>
#include <QStringList>

namespace kiln::ui {

class CacheFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit CacheFilterProxy(QObject* parent = nullptr);
    void setFilterText(const QString& text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QStringList words_;
};

}  // namespace kiln::ui
