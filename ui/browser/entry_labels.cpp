#include "ui/browser/entry_labels.hpp"

#include <algorithm>

#include "ui/browser/cache_tree.hpp"

namespace kiln::ui {

std::string_view EntryLabels::find(int node) const {
    auto it = std::lower_bound(labels_.begin(), labels_.end(), node, [](const auto& l, int n) { return l.first < n; });
    return it != labels_.end() && it->first == node ? std::string_view(it->second) : std::string_view();
}

std::shared_ptr<const EntryLabels> makeEntryLabels(const CacheTree& tree, const inductor::GraphList& list) {
    auto out = std::make_shared<EntryLabels>();
    const std::string root = tree.root.toStdString();
    std::string path;
    for (const auto& r : list.rows) {  // by path: a key dir's first entry comes first
        path.assign(root).append("/").append(r.path);
        const int node = tree.findPath(std::string_view(path));
        if (node <= 0 || tree.node(node).kind != CacheNode::Kind::file) continue;
        std::string label = r.label();
        const int parent = tree.parent(node);
        if (tree.node(parent).kind == CacheNode::Kind::group) out->labels_.emplace_back(parent, label);
        out->labels_.emplace_back(node, std::move(label));
    }
    // One label per node (a key dir keeps its first entry's), sorted for find().
    std::stable_sort(out->labels_.begin(), out->labels_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    out->labels_.erase(std::unique(out->labels_.begin(), out->labels_.end(),
                                   [](const auto& a, const auto& b) { return a.first == b.first; }),
                       out->labels_.end());
    return out;
}

}  // namespace kiln::ui
