#include "ui/browser/entry_labels.hpp"

#include <algorithm>

#include "ui/browser/cache_tree.hpp"

namespace kiln::ui {

std::string_view EntryLabels::find(int node) const {
    auto it = std::lower_bound(labels_.begin(), labels_.end(), node, [](const auto& l, int n) { return l.first < n; });
    return it != labels_.end() && it->first == node ? std::string_view(it->second) : std::string_view();
}

void EntryLabels::add(const CacheTree& tree, const inductor::GraphRow& r) {
    const std::string path = tree.scan().root + "/" + r.path;
    const int node = tree.findPath(std::string_view(path));
    if (node <= 0 || tree.node(node).kind != CacheNode::Kind::file) return;
    std::string label = r.label();
    const int parent = tree.parent(node);
    if (tree.node(parent).kind == CacheNode::Kind::group) labels_.emplace_back(parent, label);
    labels_.emplace_back(node, std::move(label));
}

void EntryLabels::finish() {
    // One label per node (a key dir keeps its first entry's), sorted for find().
    std::stable_sort(labels_.begin(), labels_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    labels_.erase(
        std::unique(labels_.begin(), labels_.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
        labels_.end());
    labels_.shrink_to_fit();
}

std::shared_ptr<const EntryLabels> makeEntryLabels(const CacheTree& tree, const inductor::GraphList& list) {
    auto out = std::make_shared<EntryLabels>();
    for (const auto& r : list.rows) out->add(tree, r);  // by path: a key dir's first entry comes first
    out->finish();
    return out;
}

}  // namespace kiln::ui
