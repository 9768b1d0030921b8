#pragma once
// The left pane: a filter box over the cache tree. Replacing the tree (a rescan after a change on
// disk) keeps the current item, the expanded groups and the scroll position, matched by path.
#include <QWidget>

#include <memory>

#include "browser/cache_tree.hpp"

class QLineEdit;
class QTreeView;
class QModelIndex;

namespace kiln::ui {

class CacheTreeModel;
class CacheFilterProxy;

class CacheBrowser : public QWidget {
    Q_OBJECT
public:
    explicit CacheBrowser(QWidget* parent = nullptr);

    void setTree(std::shared_ptr<const CacheTree> tree);
    std::shared_ptr<const CacheTree> tree() const;
    bool selectPath(const QString& path);
    bool selectCategory(inductor::Category category);  // its row, expanded
    QString currentPath() const;
    void setFilterText(const QString& text);
    void focusFilter();

    CacheTreeModel* model() const { return model_; }
    CacheFilterProxy* proxy() const { return proxy_; }
    QTreeView* view() const { return view_; }

signals:
    // The current item changed: its path (empty for a category) and its node as a value.
    void currentChanged(const QString& path, const kiln::ui::CacheNode& node);
    void diffRequested(const QString& path);  // context menu: "Use as diff base"

private:
    void onCurrentChanged(const QModelIndex& current);
    void showContextMenu(const QPoint& pos);
    QStringList expandedPaths() const;

    CacheTreeModel* model_;
    CacheFilterProxy* proxy_;
    QLineEdit* filter_;
    QTreeView* view_;
};

}  // namespace kiln::ui
