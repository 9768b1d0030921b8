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
#include <unordered_map>
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
    // Dense: a node's children shown at rows 0..visible[p) are order[firstChild(p) + row]; rowOf is a
    // node's row under its parent, -1 when filtered out.
    std::vector<std::int32_t> order;
    std::vector<std::uint32_t> visible;
    std::vector<std::int32_t> rowOf;
    // Sparse (no filter, names ascending: only the entries' readable names move rows, under a few
    // parents): every node shows; the parents whose children moved keep them at order[start + row],
    // their children's rows in movedRow; all else is the tree's own order. At a million files the
    // dense arrays were 13 MB held for the session, and as much again while made.
    bool sparse = false;
    std::unordered_map<std::int32_t, std::uint32_t> start;
    std::unordered_map<std::int32_t, std::int32_t> movedRow;

    int shownCount(const CacheTree& t, int node) const;
    int shownChild(const CacheTree& t, int node, int row) const;
    int rowOfNode(const CacheTree& t, int node) const;
};

// Recursive filtering as QSortFilterProxyModel did it: a node shows when it matches or a descendant
// does; siblings are sorted stably (ties keep name order). Null when cancelled.
// `labels`: the graph entries' readable names, which the filter matches and the name column sorts by.
// `dense`: never the sparse form (tests compare the two).
std::shared_ptr<const TreeOrder> computeOrder(const CacheTree& tree, const OrderSpec& spec,
                                              const std::atomic<bool>* cancel = nullptr,
                                              const EntryLabels* labels = nullptr, bool dense = false);

}  // namespace kiln::ui
