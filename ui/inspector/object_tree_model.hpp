#pragma once
// The decoded pickle as a lazily expanded tree. A pickle is a DAG that may contain cycles, so an
// item is a path from the root (not a node). The decoded document is immutable, so an item's
// children exist from the start; they are only materialised when a view first asks for them
// (rowCount of an expanded item). A node that is its own ancestor is shown once, marked as a
// cycle, without children.
#include <QAbstractItemModel>

#include <memory>
#include <vector>

#include "pickle/value.hpp"

namespace kiln::ui {

class ObjectTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, TypeColumn, ValueColumn, OffsetColumn, ColumnCount };

    explicit ObjectTreeModel(QObject* parent = nullptr);
    ~ObjectTreeModel() override;
    // `doc` keeps the nodes alive; `root` is shown as the single top-level item.
    void setDocument(std::shared_ptr<const pickle::Document> doc, pickle::Ref root, const QString& rootLabel);
    void clear();

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    struct Item {
        QString label;
        pickle::Ref value = nullptr;
        Item* parent = nullptr;
        int row = 0;
        bool cycle = false;
        bool fetched = false;
        std::vector<std::unique_ptr<Item>> children;
    };
    Item* item(const QModelIndex& index) const;
    bool expandable(const Item* it) const;
    void materialise(Item* it) const;

    std::shared_ptr<const pickle::Document> doc_;
    std::unique_ptr<Item> root_;  // invisible; its only child is the document's root
};

}  // namespace kiln::ui
