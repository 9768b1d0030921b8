#pragma once
// The browser's readable names of graph entries (issue 18): each fxgraph/AOT entry row, and its key
// dir's row, named the way `kiln-cli ls` labels it ("mm (gen_inductor_cache.py:94) float32[8, 8]"),
// the hash moving to the Key column. Computed off the UI thread after the scan from ls's own rows
// (trace::list_named_graphs of the browser's scan) and kept by node index of the tree they were made for.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inductor/graph_list.hpp"

namespace kiln::ui {

class CacheTree;

class EntryLabels {
public:
    // The label of a node; empty when it has none.
    std::string_view find(int node) const;
    std::size_t size() const { return labels_.size(); }
    // The labelled nodes, by index (after finish()).
    int node(std::size_t i) const { return labels_[i].first; }

    // Building, from ls's rows as they come (each row once, a key dir's rows in path order), then
    // finish() once with the tree before find(): every row's label on its entry's node; a key dir's
    // node gets its first entry's label. The rows may come before the tree is built (the GUI reads
    // the entries beside the scan's walk).
    void add(const inductor::GraphRow& row);
    void finish(const CacheTree& tree);

private:
    std::vector<std::pair<std::string, std::string>> rows_;     // (path relative to the root, label) until finish
    std::vector<std::pair<std::int32_t, std::string>> labels_;  // by node index once finished
};

// add() of every row of `list`, then finish().
std::shared_ptr<const EntryLabels> makeEntryLabels(const CacheTree& tree, const inductor::GraphList& list);

}  // namespace kiln::ui
