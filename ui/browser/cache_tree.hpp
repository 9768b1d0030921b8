#pragma once
// The cache as the browser shows it: root › category › group › file, flattened into one vector of
// value nodes (an index is a node's identity). Built on a worker thread from a ScanResult, then
// handed to the model whole, so the UI thread never walks a large cache. Every file sits under its
// own category (the scanner's, as in `kiln-cli stats`): a module's .best_config is under
// best_config, not under its kernel module, so category rows and totals equal the CLI's.
#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

#include <cstdint>
#include <memory>

#include "inductor/scanner.hpp"
#include "inductor/stats.hpp"

namespace kiln::ui {

struct CacheNode {
    enum class Kind : std::uint8_t { root, category, group, file };
    Kind kind = Kind::file;
    inductor::Category category = inductor::Category::other;
    inductor::GroupKind groupKind = inductor::GroupKind::single_file;
    QString name;        // what the tree shows
    QString path;        // absolute; empty for category nodes
    QString key;         // entry/module/kernel key, if any
    QString searchText;  // lower-case haystack for the filter: relative path, key, file names
    std::uint64_t bytes = 0;
    std::uint64_t files = 0;     // files in the subtree
    std::int64_t lastUseNs = 0;  // newest use in the subtree
    int parent = -1;
    int row = 0;  // position under the parent
    QVector<int> children;
};

struct CacheTree {
    QString root;
    inductor::RootKind rootKind = inductor::RootKind::inductor;
    QVector<CacheNode> nodes;    // nodes[0] is the root
    inductor::CacheStats stats;  // compute_stats of the scan: what `kiln-cli stats` prints

    // Directories worth watching for changes, shallow ones first, at most kMaxWatchedDirs
    // (inotify watches are a per-user resource): the root, the parents of groups and files, key dirs.
    static constexpr int kMaxWatchedDirs = 4096;
    QStringList watchDirs;
    QHash<QString, int> byPath;  // node index by absolute path (groups and files)
    int findPath(const QString& path) const { return byPath.value(path, -1); }
};

// Groups under their main category, sidecars of other categories under theirs; a group with one
// file (in a category) is shown as that file.
std::shared_ptr<const CacheTree> buildCacheTree(const inductor::ScanResult& scan);
QString categoryTitle(inductor::Category c);

}  // namespace kiln::ui
