#include "ui/browser/entry_labels.hpp"

#include <algorithm>

#include "ui/browser/cache_tree.hpp"

namespace kiln::ui {

std::string_view EntryLabels::find(int node) const {
    auto it = std::lower_bound(labels_.begin(), labels_.end(), node, [](const auto& l, int n) { return l.first < n; });
    return it != labels_.end() && it->first == node ? std::string_view(it->second) : std::string_view();
}

void EntryLabels::add(const inductor::GraphRow& r) { rows_.emplace_back(r.path, r.label()); }

void EntryLabels::finish(const CacheTree& tree) {
    std::string path = tree.scan().root + "/";
    const std::size_t base = path.size();
    for (auto& [rel, label] : rows_) {
        path.resize(base);
        path += rel;
        const int node = tree.findPath(std::string_view(path));
        if (node <= 0 || tree.node(node).kind != CacheNode::Kind::file) continue;
        const int parent = tree.parent(node);
        if (tree.node(parent).kind == CacheNode::Kind::group) labels_.emplace_back(parent, label);
        labels_.emplace_back(node, std::move(label));
    }
    decltype(rows_)().swap(rows_);
    // One label per node (a key dir keeps its first entry's), sorted for find().
    std::stable_sort(labels_.begin(), labels_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    labels_.erase(
        std::unique(labels_.begin(), labels_.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
        labels_.end());
    labels_.shrink_to_fit();
}

std::shared_ptr<const EntryLabels> makeEntryLabels(const CacheTree& tree, const inductor::GraphList& list) {
    auto out = std::make_shared<EntryLabels>();
    for (const auto& r : list.rows) out->add(r);  // by path: a key dir's first entry comes first
    out->finish(tree);
    return out;
}

}  // namespace kiln::ui
