#pragma once
// The left pane: a filter box over the cache tree (the model filters and sorts itself). Replacing
// the tree (a rescan after a change on disk) keeps the current item, the expanded groups and the
// scroll position, matched by path; expanded groups are tracked as the view expands them, so a
// rescan never walks a category's rows.
#include <QSet>
#include <QWidget>

#include <memory>

#include "ui/browser/cache_tree.hpp"

class QLineEdit;
class QTreeView;
class QModelIndex;

namespace kiln::ui {

class CacheTreeModel;

class CacheBrowser : public QWidget {
    Q_OBJECT
public:
    explicit CacheBrowser(QWidget* parent = nullptr);

    void setTree(std::shared_ptr<const CacheTree> tree);
    std::shared_ptr<const CacheTree> tree() const;
    bool selectPath(const QString& path);
    // The tree's path for what the user named (`kiln --select`): absolute, or relative to the cache
    // root or to the current folder; "" when nothing in the tree is at any of them.
    QString findArtifact(const QString& given) const;
    bool selectCategory(inductor::Category category);  // its row, expanded
    QString currentPath() const;
    void setFilterText(const QString& text);
    void focusFilter();

    CacheTreeModel* model() const { return model_; }
    QTreeView* view() const { return view_; }

signals:
    // The current item changed: its path (empty for a category) and its node as a value.
    void currentChanged(const QString& path, const kiln::ui::CacheNode& node);
    void diffRequested(const QString& path);  // context menu: "Use as diff base"

private:
    void onCurrentChanged(const QModelIndex& current);
    void showContextMenu(const QPoint& pos);
    void applyFilter(const QString& text);

    CacheTreeModel* model_;
    QSet<QString> expanded_;  // paths of expanded groups, "category:<name>" of categories
    QLineEdit* filter_;
    QTreeView* view_;
};

}  // namespace kiln::ui
