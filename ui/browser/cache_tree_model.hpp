#pragma once
// A read-only tree model over a CacheTree. Replacing the tree is a model reset; the browser keeps
// the selection across resets by path.
#include <QAbstractItemModel>
#include <QColor>
#include <QHash>

#include <memory>

#include "browser/cache_tree.hpp"

namespace kiln::ui {

// A mark another view puts on paths (the Portability view's verdicts): a coloured dot before the
// name (one tone for a light palette, one for a dark one) and a line added to the tooltip.
struct PathMark {
    QColor onLight, onDark;
    QString tip;
};

class CacheTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, FilesColumn, SizeColumn, LastUsedColumn, ColumnCount };
    enum Role {
        PathRole = Qt::UserRole + 1,  // QString: absolute path
        SortRole,                     // numbers for size/files/age columns, lower-case name otherwise
        SearchRole,                   // QString: lower-case haystack for the filter
        KindRole,                     // int: CacheNode::Kind
        CategoryRole,                 // int: inductor::Category
        GroupKindRole,                // int: inductor::GroupKind
        KeyRole,                      // QString
    };

    explicit CacheTreeModel(QObject* parent = nullptr);
    void setTree(std::shared_ptr<const CacheTree> tree);
    const std::shared_ptr<const CacheTree>& tree() const { return tree_; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    QModelIndex indexForPath(const QString& path) const;
    // Replaces the marks (kept across setTree: paths, not nodes).
    void setMarks(QHash<QString, PathMark> marks);
    const QHash<QString, PathMark>& marks() const { return marks_; }
    const CacheNode* node(const QModelIndex& index) const;

private:
    int nodeIndex(const QModelIndex& parent) const;  // invalid parent -> the root's children
    std::shared_ptr<const CacheTree> tree_;
    QHash<QString, PathMark> marks_;
};

// inductor::format_bytes (powers of 1000, "63.9 MB"), the formatter of `kiln-cli stats`.
QString formatBytes(std::uint64_t bytes);

}  // namespace kiln::ui
