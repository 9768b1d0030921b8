#include "ui/browser/tree_order.hpp"

#include <QString>
#include <QStringList>

#include <algorithm>

namespace kiln::ui {

std::vector<std::string> filterWords(const QString& text) {
    std::vector<std::string> out;
    for (const QString& w : text.toLower().split(QLatin1Char(' '), Qt::SkipEmptyParts)) out.push_back(w.toStdString());
    return out;
}

namespace {

std::string_view sortName(const CacheTree& t, int i, const EntryLabels* labels) {
    const TreeNode& n = t.node(i);
    if (n.kind == CacheNode::Kind::category) return inductor::category_name(n.category);
    if (labels)
        if (auto l = labels->find(i); !l.empty()) return l;
    return t.nameView(i);
}

// -1, 0, 1 by the column's value (the numbers the Files, Size and Last used columns show).
int compareBy(const CacheTree& t, int column, int a, int b, const EntryLabels* labels) {
    auto cmp = [](auto u, auto v) { return u < v ? -1 : (v < u ? 1 : 0); };
    switch (column) {
        case 1: return cmp(t.files(a), t.files(b));
        case 2: return cmp(t.bytes(a), t.bytes(b));
        case 3: return cmp(t.lastUseNs(a), t.lastUseNs(b));
        case 4: return compareNoCase(t.keyView(a), t.keyView(b));
        default: return compareNoCase(sortName(t, a, labels), sortName(t, b, labels));
    }
}

}  // namespace

int TreeOrder::shownCount(const CacheTree& t, int node) const {
    return sparse ? t.childCount(node) : static_cast<int>(visible[static_cast<std::size_t>(node)]);
}

int TreeOrder::shownChild(const CacheTree& t, int node, int row) const {
    if (!sparse) return order[static_cast<std::size_t>(t.node(node).firstChild + row)];
    const auto it = start.find(node);
    return it == start.end() ? t.child(node, row) : order[it->second + static_cast<std::uint32_t>(row)];
}

int TreeOrder::rowOfNode(const CacheTree& t, int node) const {
    if (!sparse) return rowOf[static_cast<std::size_t>(node)];
    const auto it = movedRow.find(node);
    return it == movedRow.end() ? t.row(node) : it->second;
}

std::shared_ptr<const TreeOrder> computeOrder(const CacheTree& tree, const OrderSpec& spec,
                                              const std::atomic<bool>* cancel, const EntryLabels* labels, bool dense) {
    auto o = std::make_shared<TreeOrder>();
    const auto n = static_cast<std::size_t>(tree.size());
    auto cancelled = [cancel](std::size_t i) { return cancel && (i & 0x3fff) == 0 && cancel->load(); };
    if (!dense && spec.words.empty() && spec.column == 0 && spec.order == Qt::AscendingOrder) {
        // Each parent's children sorted as below; kept only where that moved one. Only a labelled node's
        // parent can move: any other's children are in the tree's order, which is this sort without labels
        // (siblings by name); at a million files, sorting every parent again took ~1.5 CPU-s (issue 44).
        o->sparse = true;
        std::vector<int> parents;
        if (labels) {
            parents.reserve(labels->size());
            for (std::size_t i = 0; i < labels->size(); ++i) parents.push_back(tree.parent(labels->node(i)));
            std::sort(parents.begin(), parents.end());
            parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
        }
        std::vector<std::int32_t> kids;
        for (std::size_t k = 0; k < parents.size(); ++k) {
            if (cancelled(k)) return nullptr;
            const int pi = parents[k];
            const int count = tree.childCount(pi);
            if (count < 2) continue;
            kids.clear();
            for (int c = 0; c < count; ++c) kids.push_back(tree.child(pi, c));
            std::stable_sort(kids.begin(), kids.end(),
                             [&](int a, int b) { return compareBy(tree, 0, a, b, labels) < 0; });
            bool moved = false;
            for (int c = 0; c < count && !moved; ++c) moved = kids[static_cast<std::size_t>(c)] != tree.child(pi, c);
            if (!moved) continue;
            o->start.emplace(pi, static_cast<std::uint32_t>(o->order.size()));
            for (int c = 0; c < count; ++c) {
                o->order.push_back(kids[static_cast<std::size_t>(c)]);
                o->movedRow.emplace(kids[static_cast<std::size_t>(c)], c);
            }
        }
        o->order.shrink_to_fit();
        return o;
    }
    o->visible.assign(n, 0);
    o->rowOf.assign(n, -1);
    o->order.assign(n, 0);
    // Children come after their parents: one pass from the end sees every child before its parent.
    for (std::size_t i = n; i-- > 1;) {
        if (cancelled(i)) return nullptr;
        const int ii = static_cast<int>(i);
        if (spec.words.empty() || o->visible[i] > 0 || tree.matches(ii, spec.words, labels)) {
            o->rowOf[i] = 0;
            ++o->visible[static_cast<std::size_t>(tree.parent(ii))];
        }
    }
    // The name column's own order is the tree's (file names); readable names re-sort it.
    const bool sorted = spec.column > 0 || (spec.column == 0 && (spec.order == Qt::DescendingOrder || labels));
    const bool desc = spec.order == Qt::DescendingOrder;
    for (std::size_t p = 0; p < n; ++p) {
        if (o->visible[p] == 0) continue;
        if (cancelled(p)) return nullptr;
        const int pi = static_cast<int>(p);
        const auto first = static_cast<std::size_t>(tree.node(pi).firstChild);
        std::size_t w = first;
        for (int c = 0; c < tree.childCount(pi); ++c)
            if (o->rowOf[first + static_cast<std::size_t>(c)] >= 0) o->order[w++] = tree.child(pi, c);
        const auto begin = o->order.begin() + static_cast<std::ptrdiff_t>(first);
        const auto end = o->order.begin() + static_cast<std::ptrdiff_t>(w);
        if (sorted)
            std::stable_sort(begin, end, [&](int a, int b) {
                const int c = compareBy(tree, spec.column, a, b, labels);
                return desc ? c > 0 : c < 0;
            });
        for (auto it = begin; it != end; ++it)
            o->rowOf[static_cast<std::size_t>(*it)] = static_cast<std::int32_t>(it - begin);
    }
    return o;
}

}  // namespace kiln::ui
