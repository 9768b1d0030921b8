#pragma once
// A read-only tree model over a CacheTree that filters and sorts itself (no proxy): a TreeOrder
// says which children each node shows. Small trees are reordered at once; large ones on a worker
// thread, swapped in with one layout change (persistent indexes, hence the view's expanded rows and
// selection, follow their nodes). Replacing the tree is a model reset; the browser keeps the
// selection across resets by path. data() builds a row's strings from the scan when asked, so
// only the rows a view shows cost anything.
#include <QAbstractItemModel>
#include <QColor>
#include <QHash>

#include <atomic>
#include <memory>

#include "ui/browser/cache_tree.hpp"
#include "ui/browser/entry_labels.hpp"
#include "ui/browser/tree_order.hpp"

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
    // Name: a graph entry's readable name once its labels are in (setEntryLabels); Key: the hash.
    enum Column { NameColumn, FilesColumn, SizeColumn, LastUsedColumn, KeyColumn, ColumnCount };
    enum Role {
        PathRole = Qt::UserRole + 1,  // QString: absolute path
        SortRole,                     // numbers for size/files/age columns, lower-case name otherwise
        SearchRole,                   // QString: lower-case haystack for the filter
        KindRole,                     // int: CacheNode::Kind
        CategoryRole,                 // int: inductor::Category
        GroupKindRole,                // int: inductor::GroupKind
        KeyRole,                      // QString
    };
    // Trees with more nodes than this are filtered and sorted on a worker thread.
    static constexpr int kAsyncNodes = 50'000;

    explicit CacheTreeModel(QObject* parent = nullptr);
    ~CacheTreeModel() override;
    void setTree(std::shared_ptr<const CacheTree> tree);
    const std::shared_ptr<const CacheTree>& tree() const { return tree_; }

    // Every word must be in the node's path, key or (groups) file names; parents of matches stay.
    // `now`: compute on this thread whatever the size (selecting a row the filter hides).
    void setFilterText(const QString& text, bool now = false);
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    bool isReordering() const { return pending_ != nullptr; }  // a worker computes the next order
    void setAsyncNodes(int nodes) { asyncNodes_ = nodes; }     // tests: force the worker path

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    QModelIndex indexForPath(const QString& path) const;  // invalid when absent or filtered out
    int nodeAt(const QModelIndex& index) const;           // the tree's node index; -1 when invalid
    CacheNode item(const QModelIndex& index) const;       // the node as a value (default when invalid)
    // Replaces the marks (kept across setTree: paths, not nodes).
    void setMarks(QHash<QString, PathMark> marks);
    // The graph entries' readable names for this tree (ignored when made for another); the filter
    // matches them and the name column sorts by them.
    void setEntryLabels(std::shared_ptr<const CacheTree> forTree, std::shared_ptr<const EntryLabels> labels);
    const std::shared_ptr<const EntryLabels>& entryLabels() const { return labels_; }
    const QHash<QString, PathMark>& marks() const { return marks_; }

signals:
    void orderApplied();  // a filter or sort took effect (after a worker: later than the call)

private:
    void reorder(bool now);
    void cancelPending();
    void apply(std::shared_ptr<const TreeOrder> order, OrderSpec spec);
    int nodeIndex(const QModelIndex& parent) const;  // invalid parent -> the root
    int shownCount(int node) const;
    int shownChild(int node, int row) const;
    int rowOf(int node) const;

    std::shared_ptr<const CacheTree> tree_;
    QHash<QString, PathMark> marks_;
    std::shared_ptr<const EntryLabels> labels_;  // for tree_ only
    int labelsVersion_ = 0;
    std::shared_ptr<const TreeOrder> order_;      // null: the tree's own order, nothing filtered
    OrderSpec spec_;                              // what order_ shows
    OrderSpec wanted_;                            // the latest request
    std::shared_ptr<std::atomic<bool>> pending_;  // the running worker's cancel flag
    OrderSpec pendingSpec_;                       // what it computes
    int asyncNodes_ = kAsyncNodes;
};

// inductor::format_bytes (powers of 1000, "63.9 MB"), the formatter of `kiln-cli stats`.
QString formatBytes(std::uint64_t bytes);

}  // namespace kiln::ui
