// The browser's compact tree against the scan it was built from: every name, path, key and filter
// haystack equals what the former per-node QStrings held (computed here from the ScanResult
// directly), every file sits in the tree once, paths resolve, and the model's filter and sort (on
// this thread and on a worker) show exactly the nodes whose haystack holds every word.
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <set>

#include "inductor/scanner.hpp"
#include "trace/graph_names.hpp"
#include "ui/browser/cache_tree_model.hpp"
#include "ui/browser/cache_watcher.hpp"
#include "ui/browser/entry_labels.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;
using Kind = CacheNode::Kind;

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }
QString baseName(std::string_view p) { return qs(p).section(QLatin1Char('/'), -1); }

struct Fixture {
    std::shared_ptr<const kiln::inductor::ScanResult> scan;
    std::shared_ptr<const CacheTree> tree;
};

Fixture load() {
    auto scan = kiln::inductor::scan_cache(test::h100Root().toStdString());
    if (!scan) return {};
    auto shared = std::make_shared<const kiln::inductor::ScanResult>(std::move(scan).value());
    return {shared, buildCacheTree(shared)};
}

// The haystack as the former CacheNode::searchText was built (QString, Unicode toLower).
QString expectedHay(const Fixture& f, int i) {
    const CacheTree& t = *f.tree;
    const TreeNode& n = t.node(i);
    if (n.kind == Kind::category) return categoryTitle(n.category);
    if (n.kind == Kind::file) {
        const auto& a = f.scan->artifacts[n.ref];
        return (qs(a.rel_path()) + QLatin1Char(' ') + qs(a.key())).toLower();
    }
    if (n.kind != Kind::group) return {};
    const auto& g = f.scan->groups[n.ref];
    QString hay = qs(g.path()).mid(f.tree->root.size() + 1) + QLatin1Char(' ') + qs(g.key);
    for (auto ai : g.artifacts)
        if (f.scan->artifacts[ai].category == g.category)
            hay += QLatin1Char(' ') + baseName(f.scan->artifacts[ai].path());
    return hay.toLower();
}

}  // namespace

class CacheTreeTest : public QObject {
    Q_OBJECT
private slots:
    void namesPathsKeysAsTheScanHasThem() {
        const Fixture f = load();
        QVERIFY(f.tree);
        const CacheTree& t = *f.tree;
        std::multiset<std::uint32_t> files;
        for (int i = 1; i < t.size(); ++i) {
            const TreeNode& n = t.node(i);
            QCOMPARE(t.row(i) >= 0 && t.row(i) < t.childCount(n.parent), true);
            QCOMPARE(t.child(n.parent, t.row(i)), i);
            if (n.kind == Kind::category) {
                QCOMPARE(t.name(i), categoryTitle(n.category));
                QVERIFY(t.path(i).isEmpty());
                continue;
            }
            if (n.kind == Kind::group) {
                const auto& g = f.scan->groups[n.ref];
                QCOMPARE(t.path(i), qs(g.path()));
                QCOMPARE(t.key(i), qs(g.key));
                QCOMPARE(t.name(i), qs(g.path()).mid(t.root.size() + 1));
                QCOMPARE(n.category, g.category);
                std::uint64_t bytes = 0;
                int members = 0;
                for (auto ai : g.artifacts)
                    if (f.scan->artifacts[ai].category == g.category) {
                        bytes += f.scan->artifacts[ai].size;
                        ++members;
                    }
                QCOMPARE(t.childCount(i), members);
                QCOMPARE(t.bytes(i), bytes);
            } else {
                const auto& a = f.scan->artifacts[n.ref];
                files.insert(n.ref);
                QCOMPARE(t.path(i), qs(a.path()));
                QCOMPARE(t.key(i), qs(a.key()));
                QCOMPARE(t.name(i), t.node(n.parent).kind == Kind::group ? baseName(a.path()) : qs(a.rel_path()));
                QCOMPARE(n.category, a.category);
                QCOMPARE(t.bytes(i), a.size);
                QCOMPARE(t.lastUseNs(i), a.last_use_ns());
            }
            QCOMPARE(t.searchText(i), expectedHay(f, i));
            // By path: this node, or (a module group and its one main file share a path) that file.
            const int found = t.findPath(t.path(i));
            QVERIFY(found > 0);
            QCOMPARE(t.path(found), t.path(i));
            const CacheNode item = t.item(i);
            QCOMPARE(item.path, t.path(i));
            QCOMPARE(item.name, t.name(i));
        }
        QCOMPARE(files.size(), f.scan->artifacts.size());  // every file once
        QCOMPARE(std::set<std::uint32_t>(files.begin(), files.end()).size(), f.scan->artifacts.size());
        QCOMPARE(t.findPath(QStringLiteral("/no/such/file")), -1);
        QCOMPARE(t.findPath(t.root), 0);
    }

    // The readable names from ls's rows a few at a time (the GUI's read since issue 33, AOT rows
    // first) are the names from the whole list, node for node.
    void entryLabelsFromBatchesEqualTheWholeList() {
        const Fixture f = load();
        QVERIFY(f.tree);
        auto list = kiln::trace::list_named_graphs(*f.scan, std::nullopt);
        QVERIFY(list.ok());
        const auto whole = makeEntryLabels(*f.tree, *list);
        EntryLabels batched;
        auto read = kiln::trace::for_each_named_graph_batch(*f.scan, std::nullopt, 3,
                                                            [&](std::vector<kiln::inductor::GraphRow>& rows) {
                                                                for (const auto& r : rows) batched.add(r);
                                                            });
        QVERIFY(read.ok());
        batched.finish(*f.tree);
        QVERIFY(whole->size() > list->rows.size());  // every entry and its key dir
        QCOMPARE(batched.size(), whole->size());
        for (int i = 0; i < f.tree->size(); ++i)
            QCOMPARE(QString::fromStdString(std::string(batched.find(i))),
                     QString::fromStdString(std::string(whole->find(i))));
    }

    // The order held after the entries' names come (no filter, names ascending) is the sparse form:
    // only the parents whose children the names moved; it shows every row as the dense form does.
    void sparseOrderEqualsTheDenseOne() {
        const Fixture f = load();
        QVERIFY(f.tree);
        const CacheTree& t = *f.tree;
        auto list = kiln::trace::list_named_graphs(*f.scan, std::nullopt);
        QVERIFY(list.ok());
        const auto labels = makeEntryLabels(t, *list);
        const OrderSpec spec{0, Qt::AscendingOrder, {}, 1};
        const auto sparse = computeOrder(t, spec, nullptr, labels.get());
        const auto dense = computeOrder(t, spec, nullptr, labels.get(), /*dense=*/true);
        QVERIFY(sparse && dense);
        QVERIFY(sparse->sparse);
        QVERIFY(!dense->sparse);
        QVERIFY(!sparse->start.empty());  // the names moved some rows (else this test shows nothing)
        QVERIFY(sparse->start.size() < std::size_t(t.size()) / 10);
        for (int i = 0; i < t.size(); ++i) {
            QCOMPARE(sparse->shownCount(t, i), dense->shownCount(t, i));
            if (i > 0) QCOMPARE(sparse->rowOfNode(t, i), dense->rowOfNode(t, i));  // the root has no row
            for (int r = 0; r < dense->shownCount(t, i); ++r)
                QCOMPARE(sparse->shownChild(t, i, r), dense->shownChild(t, i, r));
        }
    }

    void filterMatchesTheHaystack() {
        const Fixture f = load();
        QVERIFY(f.tree);
        const CacheTree& t = *f.tree;
        const QStringList filters{"triton_poi", "TRITON_POI fused", "fxgraph", ".best_config", "cgq",
                                  "a b c",      "no-such-word",     "json"};
        for (const QString& text : filters) {
            const auto words = filterWords(text);
            const auto order = computeOrder(t, OrderSpec{0, Qt::AscendingOrder, words});
            QVERIFY(order);
            std::vector<bool> shown(std::size_t(t.size()), false);
            for (int i = t.size() - 1; i > 0; --i) {  // QSortFilterProxyModel's recursive filtering
                const QString hay = expectedHay(f, i);
                bool match = true;
                for (const QString& w : text.toLower().split(' ', Qt::SkipEmptyParts)) match = match && hay.contains(w);
                QCOMPARE(t.matches(i, words), match);
                if (match || shown[std::size_t(i)]) shown[std::size_t(i)] = shown[std::size_t(t.parent(i))] = true;
                QCOMPARE(order->rowOf[std::size_t(i)] >= 0, bool(shown[std::size_t(i)]));
            }
        }
    }

    void workerOrderEqualsTheImmediateOne() {
        const Fixture f = load();
        QVERIFY(f.tree);
        CacheTreeModel now, worker;
        worker.setAsyncNodes(0);  // every reorder on a worker thread
        now.setTree(f.tree);
        worker.setTree(f.tree);
        QSignalSpy applied(&worker, &CacheTreeModel::orderApplied);
        for (const auto& [text, column] : {std::pair{QStringLiteral("triton"), 2}, {QStringLiteral("c"), 3}}) {
            now.sort(column, Qt::DescendingOrder);
            now.setFilterText(text);
            worker.sort(column, Qt::DescendingOrder);
            worker.setFilterText(text);
            QVERIFY(worker.isReordering());
            QVERIFY(test::waitFor([&] { return !worker.isReordering(); }));
            QCOMPARE(worker.rowCount(), now.rowCount());
            for (int r = 0; r < now.rowCount(); ++r) {
                const QModelIndex a = now.index(r, 0), b = worker.index(r, 0);
                QCOMPARE(worker.rowCount(b), now.rowCount(a));
                for (int c = 0; c < now.rowCount(a); ++c)
                    QCOMPARE(worker.index(c, 0, b).data(CacheTreeModel::PathRole),
                             now.index(c, 0, a).data(CacheTreeModel::PathRole));
            }
        }
        QVERIFY(applied.count() >= 2);
    }

    void watcherAddsEveryDirOffTheUiThread() {
        // A large cache's dirs are watched from the watcher's own thread: every one in the end, a
        // directory that goes meanwhile skipped, not fatal; a change in one is noticed (its signal
        // crosses to this thread); clear() and a new watch() stop the adds.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        CacheTree tree;
        for (int i = 0; i < 600; ++i) {
            const QString d = dir.path() + QStringLiteral("/d%1").arg(i);
            QVERIFY(QDir().mkpath(d));
            tree.watchDirs.push_back(d);
        }
        CacheWatcher w;
        w.setCoalesceMs(10);
        QSignalSpy changed(&w, &CacheWatcher::changed);
        w.watch(tree);
        QVERIFY(w.adding());
        QVERIFY(QDir(tree.watchDirs.last()).removeRecursively());
        QTRY_VERIFY(!w.adding());
        QVERIFY(w.watchedCount() >= 599);
        QTest::qWait(50);  // the removal's own change, if its dir was watched by then
        changed.clear();
        QVERIFY(QDir().mkpath(tree.watchDirs.first() + QStringLiteral("/new")));
        QTRY_COMPARE(changed.count(), 1);
        w.clear();
        QTRY_COMPARE(w.watchedCount(), 0);
        QVERIFY(!w.adding());
        w.watch(tree);  // stopped by the clear() right after it: nothing stays watched
        w.clear();
        QTRY_VERIFY(!w.adding());
        QCOMPARE(w.watchedCount(), 0);
        tree.watchDirs = tree.watchDirs.mid(0, 10);
        w.watch(tree);
        QTRY_VERIFY(!w.adding());
        QCOMPARE(w.watchedCount(), 10);
    }
};

QTEST_MAIN(CacheTreeTest)
#include "cache_tree_test.moc"
