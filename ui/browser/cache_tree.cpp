#include "browser/cache_tree.hpp"

#include <QDir>
#include <QSet>

#include <algorithm>
#include <array>
#include <map>
#include <vector>

namespace kiln::ui {

using inductor::Category;
using inductor::GroupKind;

QString categoryTitle(Category c) {
    return QString::fromUtf8(inductor::category_name(c).data(), static_cast<int>(inductor::category_name(c).size()));
}

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
        if (n.kind == CacheNode::Kind::group ||
            (n.kind == CacheNode::Kind::file && t.nodes[n.parent].kind == CacheNode::Kind::category))
            add(parentDir(n.path));
    for (const auto& n : t.nodes)  // key dirs themselves: a new entry of an existing key
        if (n.kind == CacheNode::Kind::group && n.groupKind == GroupKind::key_dir) add(n.path);
}

// A group's members by category, in walk order: the main category's become the group node, the
// sidecars of other categories (a module's .best_config, .kernel_perf, build records) file nodes.
std::map<Category, std::vector<std::uint32_t>> membersByCategory(const inductor::Group& g,
                                                                 const inductor::ScanResult& scan) {
    std::map<Category, std::vector<std::uint32_t>> out;
    for (auto ai : g.artifacts) out[scan.artifacts[ai].category].push_back(ai);
    return out;
}

void addGroup(CacheTree& t, const inductor::ScanResult& scan, const inductor::Group& g, Category cat,
              const std::vector<std::uint32_t>& members, int catNode) {
    const bool dirGroup = g.kind == GroupKind::key_dir || g.kind == GroupKind::triton_kernel_dir;
    if (cat != g.category || (members.size() == 1 && !dirGroup)) {
        for (auto ai : members) {
            const auto& a = scan.artifacts[ai];
            CacheNode f = fileNode(a, qstr(a.rel_path()));
            f.groupKind = g.kind;
            addNode(t, catNode, std::move(f));
        }
        return;
    }
    CacheNode gn;
    gn.kind = CacheNode::Kind::group;
    gn.category = g.category;
    gn.groupKind = g.kind;
    gn.path = qstr(g.path);
    gn.key = qstr(g.key);
    gn.name = gn.path.startsWith(t.root) ? QDir(t.root).relativeFilePath(gn.path) : gn.path;
    QString hay = gn.name + QLatin1Char(' ') + gn.key;
    const int gi = addNode(t, catNode, std::move(gn));
    for (auto ai : members) {
        const auto& a = scan.artifacts[ai];
        hay += QLatin1Char(' ') + baseName(a.path);
        t.nodes[gi].bytes += a.size;
        t.nodes[gi].lastUseNs = std::max(t.nodes[gi].lastUseNs, a.last_use_ns());
        addNode(t, gi, fileNode(a, baseName(a.path)));
    }
    t.nodes[gi].searchText = hay.toLower();
    t.nodes[gi].files = static_cast<std::uint64_t>(members.size());
}

}  // namespace

std::shared_ptr<const CacheTree> buildCacheTree(const inductor::ScanResult& scan) {
    auto tree = std::make_shared<CacheTree>();
    CacheTree& t = *tree;
    t.root = qstr(scan.root);
    t.rootKind = scan.kind;
    t.stats = inductor::compute_stats(scan);
    t.nodes.reserve(static_cast<qsizetype>(scan.artifacts.size() + scan.groups.size() + inductor::kCategoryCount + 1));

    CacheNode root;
    root.kind = CacheNode::Kind::root;
    root.name = t.root;
    root.path = t.root;
    addNode(t, -1, std::move(root));

    // Category nodes in enum order, for every category that has files.
    std::array<int, inductor::kCategoryCount> catNode;
    catNode.fill(-1);
    for (std::size_t ci = 0; ci < inductor::kCategoryCount; ++ci) {
        if (t.stats.categories[ci].files == 0) continue;
        CacheNode c;
        c.kind = CacheNode::Kind::category;
        c.category = static_cast<Category>(ci);
        c.name = categoryTitle(c.category);
        c.searchText = c.name;
        catNode[ci] = addNode(t, 0, std::move(c));
    }
    for (const auto& g : scan.groups)
        for (const auto& [cat, members] : membersByCategory(g, scan))
            addGroup(t, scan, g, cat, members, catNode[static_cast<std::size_t>(cat)]);
    for (const auto& a : scan.artifacts)  // files outside every group (none today): under their category
        if (a.group == inductor::kNoGroup)
            addNode(t, catNode[static_cast<std::size_t>(a.category)], fileNode(a, qstr(a.rel_path())));

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
