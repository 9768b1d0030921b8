#include "ui/browser/cache_tree.hpp"

#include "ui/browser/entry_labels.hpp"
#include "ui/common/qt_string.hpp"
#include "util/cpus.hpp"
#include "util/parallel.hpp"

#include <algorithm>
#include <array>
#include <unordered_set>

namespace kiln::ui {

using inductor::Category;
using inductor::GroupKind;
using Kind = CacheNode::Kind;

// A million of them are held while the window is open (issue 33: every byte here is a MB there).
static_assert(sizeof(TreeNode) == 24, "TreeNode grew: a file's numbers are its artifact's, others' in rollups_");

QString categoryTitle(Category c) {
    return QString::fromUtf8(inductor::category_name(c).data(), static_cast<int>(inductor::category_name(c).size()));
}

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string_view baseName(std::string_view path) {
    const auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}
std::string_view parentDir(std::string_view p) {
    const auto slash = p.rfind('/');
    return slash == std::string_view::npos ? std::string_view() : p.substr(0, slash);
}

// One row under a category before layout: a group (with the members of its main category) or a file.
struct Item {
    Kind kind;
    std::uint32_t ref;  // group or artifact index
    GroupKind groupKind;
};

}  // namespace

int compareNoCase(std::string_view a, std::string_view b) {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
        const auto x = static_cast<unsigned char>(lower(a[i])), y = static_cast<unsigned char>(lower(b[i]));
        if (x != y) return x < y ? -1 : 1;
    }
    return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

bool containsNoCase(std::string_view hay, std::string_view needle) {
    if (needle.empty()) return true;
    if (needle.size() > hay.size()) return false;
    const char first = needle[0];
    for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i) {
        if (lower(hay[i]) != first) continue;
        std::size_t j = 1;
        while (j < needle.size() && lower(hay[i + j]) == needle[j]) ++j;
        if (j == needle.size()) return true;
    }
    return false;
}

std::string_view CacheTree::relView(int i) const {
    const TreeNode& n = node(i);
    switch (n.kind) {
        case Kind::root:
        case Kind::category: return {};
        case Kind::group: return scan_->groups[n.ref].rel_path();
        case Kind::file: return scan_->artifacts[n.ref].rel_path();
    }
    return {};
}

std::string_view CacheTree::nameView(int i) const {
    const TreeNode& n = node(i);
    if (n.kind == Kind::group) return scan_->groups[n.ref].rel_path();
    if (n.kind != Kind::file) return {};
    const auto& a = scan_->artifacts[n.ref];
    return node(n.parent).kind == Kind::group ? baseName(a.rel_path()) : a.rel_path();
}

std::string_view CacheTree::keyView(int i) const {
    const TreeNode& n = node(i);
    if (n.kind == Kind::group) return scan_->groups[n.ref].key;
    if (n.kind == Kind::file) return scan_->artifacts[n.ref].key();
    return {};
}

QString CacheTree::name(int i) const {
    const TreeNode& n = node(i);
    if (n.kind == Kind::root) return root;
    if (n.kind == Kind::category) return categoryTitle(n.category);
    return qstr(nameView(i));
}
QString CacheTree::path(int i) const {
    const TreeNode& n = node(i);
    switch (n.kind) {
        case Kind::root: return qstr(scan_->root);
        case Kind::category: return {};
        case Kind::group: return qstr(scan_->groups[n.ref].path());
        case Kind::file: return qstr(scan_->artifacts[n.ref].path());
    }
    return {};
}
QString CacheTree::key(int i) const { return qstr(keyView(i)); }

std::uint64_t CacheTree::bytes(int i) const {
    const TreeNode& n = node(i);
    return n.kind == Kind::file ? scan_->artifacts[n.ref].size : rollups_[n.rollup].bytes;
}
std::uint64_t CacheTree::files(int i) const {
    const TreeNode& n = node(i);
    return n.kind == Kind::file ? 1 : rollups_[n.rollup].files;
}
std::int64_t CacheTree::lastUseNs(int i) const {
    const TreeNode& n = node(i);
    return n.kind == Kind::file ? scan_->artifacts[n.ref].last_use_ns() : rollups_[n.rollup].lastUseNs;
}

CacheNode CacheTree::item(int i) const {
    const TreeNode& n = node(i);
    CacheNode c;
    c.kind = n.kind;
    c.category = n.category;
    c.groupKind = n.groupKind;
    c.name = name(i);
    c.path = path(i);
    c.key = key(i);
    c.bytes = bytes(i);
    c.files = files(i);
    c.lastUseNs = lastUseNs(i);
    return c;
}

bool CacheTree::matches(int i, const std::vector<std::string>& words, const EntryLabels* labels) const {
    const TreeNode& n = node(i);
    const bool entry = n.category == Category::fxgraph || n.category == Category::aotautograd;
    auto labelHas = [&](int node, const std::string& w) {
        return labels && entry && containsNoCase(labels->find(node), w);
    };
    for (const std::string& w : words) {
        bool found = false;
        switch (n.kind) {
            case Kind::root: break;
            case Kind::category: found = containsNoCase(inductor::category_name(n.category), w); break;
            case Kind::file:
                found = containsNoCase(scan_->artifacts[n.ref].rel_path(), w) || containsNoCase(keyView(i), w) ||
                        labelHas(i, w);
                break;
            case Kind::group:
                found = containsNoCase(nameView(i), w) || containsNoCase(keyView(i), w) || labelHas(i, w);
                for (int c = 0; !found && c < childCount(i); ++c)
                    found = containsNoCase(nameView(child(i, c)), w) || labelHas(child(i, c), w);
                break;
        }
        if (!found) return false;
    }
    return true;
}

QString CacheTree::searchText(int i) const {
    const TreeNode& n = node(i);
    switch (n.kind) {
        case Kind::root: return {};
        case Kind::category: return name(i);
        case Kind::file: return (qstr(scan_->artifacts[n.ref].rel_path()) + QLatin1Char(' ') + key(i)).toLower();
        case Kind::group: {
            QString hay = name(i) + QLatin1Char(' ') + key(i);
            const auto& g = scan_->groups[n.ref];
            for (auto ai : g.artifacts)  // walk order, as the scan lists them
                if (scan_->artifacts[ai].category == g.category)
                    hay += QLatin1Char(' ') + qstr(baseName(scan_->artifacts[ai].rel_path()));
            return hay.toLower();
        }
    }
    return {};
}

int CacheTree::findPath(std::string_view path) const {
    const std::string_view root = scan_->root;
    if (path == root) return 0;
    if (path.size() <= root.size() + 1 || path.substr(0, root.size()) != root || path[root.size()] != '/') return -1;
    const std::string_view rel = path.substr(root.size() + 1);
    auto less = [this](std::int32_t n, std::string_view p) { return relView(n) < p; };
    auto it = std::lower_bound(byPath_.begin(), byPath_.end(), rel, less);
    if (it == byPath_.end() || relView(*it) != rel) return -1;
    // Equal paths (a module group and its one main file): the file, as the old per-path map kept it.
    while (it + 1 != byPath_.end() && relView(*(it + 1)) == rel) ++it;
    return *it;
}

namespace {

struct Builder {
    const inductor::ScanResult& scan;
    std::vector<TreeNode>& nodes;

    std::string_view itemName(const Item& it) const {
        if (it.kind == Kind::file) return scan.artifacts[it.ref].rel_path();
        return scan.groups[it.ref].rel_path();
    }

    void addFile(int parent, std::uint32_t ai, GroupKind gk) {
        const auto& a = scan.artifacts[ai];
        TreeNode n;
        n.kind = Kind::file;
        n.category = a.category;
        n.groupKind = gk;
        n.ref = ai;
        n.parent = parent;
        nodes.push_back(n);
    }

    // Lays out one parent's children contiguously.
    void adopt(int parent) {
        nodes[static_cast<std::size_t>(parent)].firstChild = static_cast<std::int32_t>(nodes.size());
    }
};

// Groups under their main category (when they have several files there, or are dirs), every other
// file under its own category, as rows sorted by name.
std::array<std::vector<Item>, inductor::kCategoryCount> itemsByCategory(const inductor::ScanResult& scan) {
    std::array<std::vector<Item>, inductor::kCategoryCount> items;
    for (std::uint32_t gi = 0; gi < scan.groups.size(); ++gi) {
        const auto& g = scan.groups[gi];
        const bool dirGroup = g.kind == GroupKind::key_dir || g.kind == GroupKind::triton_kernel_dir;
        std::uint32_t mainCount = 0, lastMain = 0;
        for (auto ai : g.artifacts) {
            if (scan.artifacts[ai].category == g.category) {
                ++mainCount;
                lastMain = ai;
            } else {
                items[static_cast<std::size_t>(scan.artifacts[ai].category)].push_back({Kind::file, ai, g.kind});
            }
        }
        if (mainCount == 0) continue;
        auto& into = items[static_cast<std::size_t>(g.category)];
        if (mainCount == 1 && !dirGroup) into.push_back({Kind::file, lastMain, g.kind});
        else into.push_back({Kind::group, gi, g.kind});
    }
    for (std::uint32_t ai = 0; ai < scan.artifacts.size(); ++ai)  // files outside every group (none today)
        if (scan.artifacts[ai].group == inductor::kNoGroup)
            items[static_cast<std::size_t>(scan.artifacts[ai].category)].push_back(
                {Kind::file, ai, GroupKind::single_file});
    return items;
}

void collectWatchDirs(CacheTree& t, const std::vector<TreeNode>& nodes, const std::string& root) {
    std::unordered_set<std::string_view> seen;  // relative to the root: "" is the root itself
    const QString rootDir = qstr(root);
    auto add = [&](std::string_view rel) {
        if (t.watchDirs.size() < CacheTree::kMaxWatchedDirs && seen.insert(rel).second)
            t.watchDirs.push_back(rel.empty() ? rootDir : rootDir + QLatin1Char('/') + qstr(rel));
    };
    add({});
    for (int i = 0; i < t.size() && t.watchDirs.size() < CacheTree::kMaxWatchedDirs; ++i) {
        const TreeNode& n = nodes[static_cast<std::size_t>(i)];  // fxgraph/, triton/0/: where new two-level dirs appear
        if (n.kind == Kind::group && n.groupKind != GroupKind::module && !parentDir(t.relView(i)).empty())
            add(parentDir(parentDir(t.relView(i))));
    }
    for (int i = 0; i < t.size() && t.watchDirs.size() < CacheTree::kMaxWatchedDirs; ++i) {
        const TreeNode& n = nodes[static_cast<std::size_t>(i)];
        if (n.kind == Kind::group ||
            (n.kind == Kind::file && nodes[static_cast<std::size_t>(n.parent)].kind == Kind::category))
            add(parentDir(t.relView(i)));
    }
    for (int i = 0; i < t.size() && t.watchDirs.size() < CacheTree::kMaxWatchedDirs;
         ++i)  // a new entry of an existing key
        if (nodes[static_cast<std::size_t>(i)].kind == Kind::group &&
            nodes[static_cast<std::size_t>(i)].groupKind == GroupKind::key_dir)
            add(t.relView(i));
}

}  // namespace

std::shared_ptr<const CacheTree> buildCacheTree(std::shared_ptr<const inductor::ScanResult> scanPtr) {
    auto tree = std::make_shared<CacheTree>();
    CacheTree& t = *tree;
    const inductor::ScanResult& scan = *scanPtr;
    t.scan_ = std::move(scanPtr);
    t.root = qstr(scan.root);
    t.rootKind = scan.kind;
    t.stats = inductor::compute_stats(scan);
    auto& nodes = t.nodes_;
    nodes.reserve(scan.artifacts.size() + scan.groups.size() + inductor::kCategoryCount + 1);
    Builder b{scan, nodes};

    // The nodes that are no file get their totals' slot as they are made.
    auto newRollup = [&t] {
        t.rollups_.emplace_back();
        return static_cast<std::uint32_t>(t.rollups_.size() - 1);
    };
    TreeNode root;
    root.kind = Kind::root;
    root.rollup = newRollup();
    nodes.push_back(root);
    // Category nodes by name, for every category that has files.
    auto items = itemsByCategory(scan);
    std::vector<std::size_t> cats;
    for (std::size_t ci = 0; ci < inductor::kCategoryCount; ++ci)
        if (!items[ci].empty()) cats.push_back(ci);
    std::sort(cats.begin(), cats.end(), [](std::size_t x, std::size_t y) {
        return compareNoCase(inductor::category_name(Category(x)), inductor::category_name(Category(y))) < 0;
    });
    std::vector<int> catNodes;
    b.adopt(0);
    for (std::size_t ci : cats) {
        TreeNode c;
        c.kind = Kind::category;
        c.rollup = newRollup();
        c.category = static_cast<Category>(ci);
        c.ref = static_cast<std::uint32_t>(ci);
        c.parent = 0;
        catNodes.push_back(static_cast<int>(nodes.size()));
        nodes.push_back(c);
    }
    nodes[0].childCount = static_cast<std::uint32_t>(catNodes.size());
    // Category rows in name order (the browser's default sort; stable: walk order among equals).
    std::vector<int> groupNodes;
    for (int ci : catNodes) {
        auto& list = items[nodes[static_cast<std::size_t>(ci)].ref];
        std::stable_sort(list.begin(), list.end(),
                         [&](const Item& x, const Item& y) { return compareNoCase(b.itemName(x), b.itemName(y)) < 0; });
        b.adopt(ci);
        nodes[static_cast<std::size_t>(ci)].childCount = static_cast<std::uint32_t>(list.size());
        for (const Item& it : list) {
            if (it.kind == Kind::file) {
                b.addFile(ci, it.ref, it.groupKind);
                continue;
            }
            const auto& g = scan.groups[it.ref];
            TreeNode gn;
            gn.kind = Kind::group;
            gn.rollup = newRollup();
            gn.category = g.category;
            gn.groupKind = g.kind;
            gn.ref = it.ref;
            gn.parent = ci;
            groupNodes.push_back(static_cast<int>(nodes.size()));
            nodes.push_back(gn);
        }
        std::vector<Item>().swap(list);
    }
    // Each group's files of its main category, by base name.
    std::vector<std::uint32_t> members;
    for (int gi : groupNodes) {
        const auto& g = scan.groups[nodes[static_cast<std::size_t>(gi)].ref];
        members.clear();
        for (auto ai : g.artifacts)
            if (scan.artifacts[ai].category == g.category) members.push_back(ai);
        std::stable_sort(members.begin(), members.end(), [&](std::uint32_t x, std::uint32_t y) {
            return compareNoCase(baseName(scan.artifacts[x].rel_path()), baseName(scan.artifacts[y].rel_path())) < 0;
        });
        b.adopt(gi);
        nodes[static_cast<std::size_t>(gi)].childCount = static_cast<std::uint32_t>(members.size());
        for (auto ai : members) b.addFile(gi, ai, g.kind);
    }
    // Roll sizes, counts and times up: children always come after their parent.
    for (std::size_t i = nodes.size() - 1; i > 0; --i) {
        const int child = static_cast<int>(i);
        CacheTree::Rollup& p = t.rollups_[nodes[static_cast<std::size_t>(nodes[i].parent)].rollup];
        p.bytes += t.bytes(child);
        p.files += t.files(child);
        p.lastUseNs = std::max(p.lastUseNs, t.lastUseNs(child));
    }
    collectWatchDirs(t, nodes, scan.root);
    t.byPath_.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].kind == Kind::group || nodes[i].kind == Kind::file)
            t.byPath_.push_back(static_cast<std::int32_t>(i));
    // On every core: the scan has ended and the jobs that wait for this tree have not started.
    parallel_sort(t.byPath_.begin(), t.byPath_.end(), usable_cpus(), [&t](std::int32_t x, std::int32_t y) {
        const auto px = t.relView(x), py = t.relView(y);  // one root: the order of the absolute paths
        return px != py ? px < py : x < y;
    });
    return tree;
}

}  // namespace kiln::ui
