#include "browser/cache_filter_proxy.hpp"

#include "browser/cache_tree_model.hpp"

namespace kiln::ui {

CacheFilterProxy::CacheFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setRecursiveFilteringEnabled(true);
    setSortRole(CacheTreeModel::SortRole);
    setDynamicSortFilter(true);
}

void CacheFilterProxy::setFilterText(const QString& text) {
    const QStringList words = text.toLower().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (words == words_) return;
    words_ = words;
    invalidateRowsFilter();
}

bool CacheFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (words_.isEmpty()) return true;
    const QModelIndex idx = sourceModel()->index(sourceRow, 0, sourceParent);
    const QString hay = idx.data(CacheTreeModel::SearchRole).toString();
    for (const QString& w : words_)
        if (!hay.contains(w)) return false;
    return true;
}

}  // namespace kiln::ui
