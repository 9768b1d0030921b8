#pragma once
// One filter and sort of a CacheTree: which children each node shows, in which order. Computed
// from the tree's compact nodes and the scan's strings with no per-row allocation, so the model can
// compute it on a worker thread for a million-row cache and swap it in with one layout change.
// The tree's own order (name ascending, no filter) needs none: a null TreeOrder stands for it.
#include <qnamespace.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ui/browser/cache_tree.hpp"
#include "ui/browser/entry_labels.hpp"

namespace kiln::ui {

struct OrderSpec {
    int column = 0;  // CacheTreeModel::Column
    Qt::SortOrder order = Qt::AscendingOrder;
    std::vector<std::string> words;  // lower-case UTF-8 words, every one must match (CacheTree::matches)
    int labelsVersion = 0;           // the entry labels it was computed with (new labels: a new order)

    bool isTreeOrder() const {
        return column <= 0 && order == Qt::AscendingOrder && words.empty() && labelsVersion == 0;
    }
    bool operator==(const OrderSpec&) const = default;
};

// Splits filter text into lower-case words.
std::vector<std::string> filterWords(const QString& text);

struct TreeOrder {
    // A node's children shown at rows 0..visible[p) are order[firstChild(p) + row].
    std::vector<std::int32_t> order;
    std::vector<std::uint32_t> visible;
    std::vector<std::int32_t> rowOf;  // a node's row under its parent; -1 when filtered out
};

// Recursive filtering as QSortFilterProxyModel did it: a node shows when it matches or a descendant
// does; siblings are sorted stably (ties keep name order). Null when cancelled.
// `labels`: the graph entries' readable names, which the filter matches and the name column sorts by.
std::shared_ptr<const TreeOrder> computeOrder(const CacheTree& tree, const OrderSpec& spec,
                                              const std::atomic<bool>* cancel = nullptr,
                                              const EntryLabels* labels = nullptr);

}  // namespace kiln::ui
