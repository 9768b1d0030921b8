#pragma once
// The cache as the browser shows it: root › category › group › file, flattened into one vector of
// compact nodes (an index is a node's identity) over the scan they came from. A node holds a few
// integers (kind, category, its artifact or group, parent, children, rolled-up sizes); names, paths,
// keys and the filter's haystack are read on demand from the scan's strings, and a file's size and
// last use from its artifact, so a million-file cache costs about 28 bytes a node (24 and its place
// in the by-path index) on top of its ScanResult. Built on a worker thread, then handed to the
// model whole, so the UI thread never walks a large cache. Every file sits under its own category
// (the scanner's, as in `kiln-cli stats`): a module's .best_config is under best_config, not under
// its kernel module, so category rows and totals equal the CLI's.
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "inductor/scanner.hpp"
#include "inductor/stats.hpp"

namespace kiln::ui {

// One node as a value, what views outside the browser get (the inspector, the Overview's links).
struct CacheNode {
    enum class Kind : std::uint8_t { root, category, group, file };
    Kind kind = Kind::file;
    inductor::Category category = inductor::Category::other;
    inductor::GroupKind groupKind = inductor::GroupKind::single_file;
    QString name;  // what the tree shows
    QString path;  // absolute; empty for category nodes
    QString key;   // entry/module/kernel key, if any
    std::uint64_t bytes = 0;
    std::uint64_t files = 0;     // files in the subtree
    std::int64_t lastUseNs = 0;  // newest use in the subtree
};

// The tree's own node: children are contiguous (firstChild .. firstChild + childCount), stored in
// name order (ASCII case-insensitive), which is the browser's default sort. 24 bytes: a file's size
// and last use are its artifact's, the other nodes' totals are kept beside (CacheTree::bytes etc.).
struct TreeNode {
    std::uint32_t ref = 0;  // file: artifact index; group: group index; category: the Category
    std::int32_t parent = -1;
    std::int32_t firstChild = 0;
    std::uint32_t childCount = 0;
    std::uint32_t rollup = 0;  // root, category, group: its totals' index in the tree (files: none)
    CacheNode::Kind kind = CacheNode::Kind::file;
    inductor::Category category = inductor::Category::other;
    inductor::GroupKind groupKind = inductor::GroupKind::single_file;
};

class EntryLabels;

class CacheTree {
public:
    QString root;
    inductor::RootKind rootKind = inductor::RootKind::inductor;
    inductor::CacheStats stats;  // compute_stats of the scan: what `kiln-cli stats` prints

    // Directories worth watching for changes, shallow ones first, at most kMaxWatchedDirs
    // (inotify watches are a per-user resource): the root, the parents of groups and files, key dirs.
    static constexpr int kMaxWatchedDirs = 4096;
    QStringList watchDirs;

    int size() const { return static_cast<int>(nodes_.size()); }
    const TreeNode& node(int i) const { return nodes_[static_cast<std::size_t>(i)]; }
    int parent(int i) const { return node(i).parent; }
    int childCount(int i) const { return static_cast<int>(node(i).childCount); }
    int child(int i, int row) const { return node(i).firstChild + row; }
    int row(int i) const { return i <= 0 ? 0 : i - node(node(i).parent).firstChild; }
    // The subtree's bytes, files and newest use (a file: its own).
    std::uint64_t bytes(int i) const;
    std::uint64_t files(int i) const;
    std::int64_t lastUseNs(int i) const;

    // Views into the scan's strings (valid while the tree lives). relView is the path relative to the
    // root (empty for the root and categories); nameView is empty for categories and the root, whose
    // names are categoryTitle() and the root path. path() is absolute.
    std::string_view relView(int i) const;
    std::string_view nameView(int i) const;
    std::string_view keyView(int i) const;
    QString name(int i) const;
    QString path(int i) const;
    QString key(int i) const;
    CacheNode item(int i) const;  // the node as a value

    // The filter: every word (lower-case, no spaces) is an ASCII case-insensitive substring of the
    // node's relative path, key, readable name (`labels`: graph entries) or (for groups) one of its
    // files' names or readable names. Allocates nothing.
    bool matches(int i, const std::vector<std::string>& words, const EntryLabels* labels = nullptr) const;
    QString searchText(int i) const;  // that haystack as one lower-case string (tests, tooltips)

    // Node index of a group or file by absolute path; -1 when the tree does not hold it.
    int findPath(std::string_view path) const;
    int findPath(const QString& path) const { return findPath(std::string_view(path.toStdString())); }

    const inductor::ScanResult& scan() const { return *scan_; }

private:
    friend std::shared_ptr<const CacheTree> buildCacheTree(std::shared_ptr<const inductor::ScanResult> scan);
    std::shared_ptr<const inductor::ScanResult> scan_;
    std::vector<TreeNode> nodes_;  // nodes_[0] is the root
    struct Rollup {
        std::uint64_t bytes = 0;
        std::int64_t lastUseNs = 0;
        std::uint64_t files = 0;
    };
    std::vector<Rollup> rollups_;       // by TreeNode::rollup, for the nodes that are no file
    std::vector<std::int32_t> byPath_;  // groups and files, sorted by relView
};

// Groups under their main category, sidecars of other categories under theirs; a group with one
// file (in a category) is shown as that file.
std::shared_ptr<const CacheTree> buildCacheTree(std::shared_ptr<const inductor::ScanResult> scan);
QString categoryTitle(inductor::Category c);

// ASCII case-insensitive order and substring search on UTF-8 (the tree's sort and filter).
int compareNoCase(std::string_view a, std::string_view b);
bool containsNoCase(std::string_view hay, std::string_view lowerNeedle);

}  // namespace kiln::ui
