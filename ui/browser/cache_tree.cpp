#include "browser/cache_tree.hpp"

#include <QDir>
#include <QSet>

#include <algorithm>
#include <array>

namespace kiln::ui {

using inductor::Category;
using inductor::GroupKind;

QString categoryTitle(Category c) { return QString::fromUtf8(inductor::category_name(c).data(),
                                                             static_cast<int>(inductor::category_name(c).size())); }

namespace {

QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

int addNode(CacheTree& t, int parent, CacheNode n) {
    n.parent = parent;
    const int idx = static_cast<int>(t.nodes.size());
    if (parent >= 0) {
        n.row = static_cast<int>(t.nodes[parent].children.size());
        t.nodes[parent].children.push_back(idx);
    }
    t.nodes.push_back(std::move(n));
    return idx;
}

CacheNode fileNode(const inductor::Artifact& a, const QString& name) {
    CacheNode n;
    n.kind = CacheNode::Kind::file;
    n.category = a.category;
    n.name = name;
    n.path = qstr(a.path);
    n.key = qstr(a.key);
    n.searchText = (qstr(a.rel_path()) + QLatin1Char(' ') + n.key).toLower();
    n.bytes = a.size;
    n.files = 1;
    n.lastUseNs = a.last_use_ns();
    return n;
}

QString baseName(std::string_view path) {
    const auto slash = path.rfind('/');
    return qstr(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

void collectWatchDirs(CacheTree& t) {
    QSet<QString> seen;
    auto add = [&](const QString& d) {
        if (!d.isEmpty() && t.watchDirs.size() < CacheTree::kMaxWatchedDirs && !seen.contains(d)) {
            seen.insert(d);
            t.watchDirs.push_back(d);
        }
    };
    auto parentDir = [](const QString& p) { return p.left(std::max<qsizetype>(0, p.lastIndexOf(QLatin1Char('/')))); };
    add(t.root);
    for (const auto& n : t.nodes)  // fxgraph/, triton/0/: where new two-level dirs appear
        if (n.kind == CacheNode::Kind::group && n.groupKind != GroupKind::module && parentDir(n.path) != t.root)
            add(parentDir(parentDir(n.path)));
    for (const auto& n : t.nodes)
        if (n.kind == CacheNode::Kind::group || (n.kind == CacheNode::Kind::file && t.nodes[n.parent].kind == CacheNode::Kind::category))
            add(parentDir(n.path));
    for (const auto& n : t.nodes)  // key dirs themselves: a new entry of an existing key
        if (n.kind == CacheNode::Kind::group && n.groupKind == GroupKind::key_dir) add(n.path);
}

}  // namespace

std::shared_ptr<const CacheTree> buildCacheTree(const inductor::ScanResult& scan) {
    auto tree = std::make_shared<CacheTree>();
    CacheTree& t = *tree;
    t.root = qstr(scan.root);
    t.rootKind = scan.kind;
    t.unreadable = scan.unreadable;
    t.nodes.reserve(static_cast<qsizetype>(scan.artifacts.size() + scan.groups.size() + inductor::kCategoryCount + 1));

    CacheNode root;
    root.kind = CacheNode::Kind::root;
    root.name = t.root;
    root.path = t.root;
    addNode(t, -1, std::move(root));

    for (const auto& a : scan.artifacts) {
        auto& tot = t.byCategory[static_cast<std::size_t>(a.category)];
        ++tot.files;
        tot.bytes += a.size;
        // A Triton kernel is a directory of files: its entries are counted per group below.
        if (a.category != Category::triton_compiled) ++tot.entries;
    }

    // Category nodes in enum order, only for categories that have groups.
    std::array<int, inductor::kCategoryCount> catNode;
    catNode.fill(-1);
    for (const auto& g : scan.groups) {
        catNode[static_cast<std::size_t>(g.category)] = 0;
        if (g.category == Category::triton_compiled) ++t.byCategory[static_cast<std::size_t>(g.category)].entries;
        if (g.category == Category::fxgraph && g.kind == GroupKind::key_dir) ++t.fxgraphKeys;
    }
    for (std::size_t ci = 0; ci < inductor::kCategoryCount; ++ci) {
        if (catNode[ci] < 0) continue;
        CacheNode c;
        c.kind = CacheNode::Kind::category;
        c.category = static_cast<Category>(ci);
        c.name = categoryTitle(c.category);
        c.searchText = c.name;
        catNode[ci] = addNode(t, 0, std::move(c));
    }

    for (const auto& g : scan.groups) {
        if (g.artifacts.empty()) continue;
        const int cat = catNode[static_cast<std::size_t>(g.category)];
        if (g.artifacts.size() == 1 && g.kind != GroupKind::key_dir && g.kind != GroupKind::triton_kernel_dir) {
            const auto& a = scan.artifacts[g.artifacts.front()];
            CacheNode f = fileNode(a, qstr(a.rel_path()));
            f.groupKind = g.kind;
            addNode(t, cat, std::move(f));
            continue;
        }
        CacheNode gn;
        gn.kind = CacheNode::Kind::group;
        gn.category = g.category;
        gn.groupKind = g.kind;
        gn.path = qstr(g.path);
        gn.key = qstr(g.key);
        gn.name = gn.path.startsWith(t.root) ? QDir(t.root).relativeFilePath(gn.path) : gn.path;
        gn.bytes = g.bytes;
        gn.lastUseNs = g.last_use_ns;
        QString hay = gn.name + QLatin1Char(' ') + gn.key;
        const int gi = addNode(t, cat, std::move(gn));
        for (auto ai : g.artifacts) {
            const auto& a = scan.artifacts[ai];
            hay += QLatin1Char(' ') + baseName(a.path);
            addNode(t, gi, fileNode(a, baseName(a.path)));
        }
        t.nodes[gi].searchText = hay.toLower();
        t.nodes[gi].files = static_cast<std::uint64_t>(g.artifacts.size());
    }
    // Roll sizes, counts and times up to categories and the root.
    for (int ci : catNode) {
        if (ci < 0) continue;
        auto& c = t.nodes[ci];
        for (int child : c.children) {
            const auto& n = t.nodes[child];
            c.bytes += n.bytes;
            c.files += n.files;
            c.lastUseNs = std::max(c.lastUseNs, n.lastUseNs);
        }
        t.nodes[0].bytes += c.bytes;
        t.nodes[0].files += c.files;
        t.nodes[0].lastUseNs = std::max(t.nodes[0].lastUseNs, c.lastUseNs);
    }
    collectWatchDirs(t);
    t.byPath.reserve(t.nodes.size());
    for (int i = 0; i < t.nodes.size(); ++i)
        if (!t.nodes[i].path.isEmpty()) t.byPath.insert(t.nodes[i].path, i);
    return tree;
}

}  // namespace kiln::ui
