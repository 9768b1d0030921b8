// Every model of the UI under QAbstractItemModelTester, on real fixture data; plus the pieces
// they are built from (cache tree counts, line diff, highlighter language choice, job runner).
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>
#include <utility>

#include "bundle/temp_root.hpp"
#include "frontend/open_cache.hpp"
#include "inductor/graph_entry.hpp"
#include "timings/collect.hpp"
#include "timings/compile_times.hpp"
#include "ui/browser/cache_tree_model.hpp"
#include "ui/browser/scan_job.hpp"
#include "ui/diff/diff_lines_model.hpp"
#include "ui/diff/line_diff.hpp"
#include "ui/inspector/inspection.hpp"
#include "ui/inspector/key_components_model.hpp"
#include "ui/inspector/object_tree_model.hpp"
#include "ui/inspector/opcode_model.hpp"
#include "ui/inspector/summary_html.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/portability/difference_model.hpp"
#include "ui/portability/portability_job.hpp"
#include "ui/portability/verdict_model.hpp"
#include "ui/source/hex_model.hpp"
#include "ui/source/syntax_highlighter.hpp"
#include "ui/tuning/compile_entries_model.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;
using kiln::inductor::Category;

namespace {

std::shared_ptr<const CacheTree> scanTree(const QString& root) {
    JobControl ctl;
    auto opened = kiln::frontend::open_cache(std::filesystem::path(root.toStdString()));
    if (!opened) qWarning("%s", opened.error().str().c_str());
    if (!opened) return nullptr;
    ScanOutcome out = runScan(std::make_shared<const kiln::bundle::RootOrBlob>(std::move(opened).value()), ctl);
    if (!out.error.isEmpty()) qWarning("%s", qPrintable(out.error));
    return out.tree;
}

const QString kMmEntry = QStringLiteral(
    "/fxgraph/ej/fej3ypleo5ccxyjnzfv46rsawa3nerozpyvrcvtakojqw2j5kwww/"
    "jqhhvzewydfp2huj2xvssviy5thpesj2rf6mubazi544gy3cmqu");

// The root's timings as the window's one read (RootTimings) has them: collected beneath the opened root.
std::shared_ptr<const kiln::timings::TimingSet> rootTimingsOf(const kiln::bundle::RootOrBlob& cache) {
    auto set = kiln::timings::collect_timings_from({cache.opened()});
    if (!set.ok()) qWarning("%s", set.error().str().c_str());
    return set.ok() ? std::make_shared<const kiln::timings::TimingSet>(std::move(set).value()) : nullptr;
}

InspectRequest fxEntryRequest(const QString& root, const QString& entry,
                              std::shared_ptr<const kiln::bundle::RootOrBlob> cache,
                              std::shared_ptr<const kiln::timings::TimingSet> timings) {
    CacheNode node;
    node.kind = CacheNode::Kind::file;
    node.category = Category::fxgraph;
    InspectRequest req{root + entry, node, root, std::move(cache), nullptr};
    req.timings = std::move(timings);
    return req;
}

const QString kEntryA = QStringLiteral(
    "/fxgraph/bt/fbthtgcfn6jl7ghas2zkbej2nhbianoo76mqbeuwqawaoxcxbhv5/"
    "ifr5l7l6lsmupe6g3absercx7t4ths7oibbc3wcr2ytojy7hsse");

// What the Summary says of the H100 fixture's mm graph: its template, config and autotune choice.
void verifyMmKernels(const QString& html) {
    QVERIFY2(html.contains(QStringLiteral("Kernels launched (1)")), qPrintable(html));
    QVERIFY(html.contains(QStringLiteral("triton_tem_fused_mm_relu_0")));
    QVERIFY(html.contains(QStringLiteral("epilogue fused into the template: relu")));
    QVERIFY2(html.contains(QString::fromUtf8("triton_mm (BLOCK 64\u00d732\u00d7128, 5 stages, 4 warps)")),
             qPrintable(html));
    QVERIFY2(html.contains(QStringLiteral("chose this template")), qPrintable(html));
    QVERIFY(html.contains(QStringLiteral("fastest of 20 valid choices")));
}

}  // namespace

class ModelsTest : public QObject {
    Q_OBJECT
private slots:
    void cacheTreeMatchesFixtureCounts() {
        const auto tree = scanTree(test::h100Root());
        QVERIFY(tree);
        // The numbers of shared/fixtures/README.md (whose byte total is 207 short: the archive's
        // files add up to 63,905,377, as `find -printf %s` and the scanner's own tests agree).
        QCOMPARE(std::uint64_t(tree->files(0)), std::uint64_t(1067));
        QCOMPARE(tree->bytes(0), std::uint64_t(63905377));
        QCOMPARE(tree->stats[Category::fxgraph].files, std::uint64_t(13));
        QCOMPARE(tree->stats[Category::aotautograd].files, std::uint64_t(12));
        QCOMPARE(tree->stats[Category::triton_compiled].files, std::uint64_t(905));
        QCOMPARE(tree->stats[Category::triton_compiled].entries, std::uint64_t(114));
        QCOMPARE(tree->stats.fxgraph_keys, std::uint64_t(13));
    }

    void cacheTreeModelAndProxyPassTheTester() {
        CacheTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTree(scanTree(test::h100Root()));
        QVERIFY(model.rowCount() > 5);
        const int categories = model.rowCount();
        model.sort(CacheTreeModel::SizeColumn, Qt::DescendingOrder);
        model.setFilterText(QStringLiteral("triton_poi_fused"));
        QVERIFY(model.rowCount() >= 1 && model.rowCount() < categories);
        for (int r = 0; r < model.rowCount(); ++r)  // only categories holding a matching kernel remain
            QVERIFY(model.rowCount(model.index(r, 0)) > 0);
        model.setFilterText(QStringLiteral("no-such-kernel-anywhere"));
        QCOMPARE(model.rowCount(), 0);
        model.setFilterText(QString());
        QCOMPARE(model.rowCount(), categories);
        model.setTree(scanTree(test::twoEntriesRoot()));  // a reset under the tester, sorted by size
        QVERIFY(model.rowCount() > 0);
    }

    void sortBySizeOrdersGroups() {
        CacheTreeModel model;
        model.setTree(scanTree(test::h100Root()));
        model.sort(CacheTreeModel::SizeColumn, Qt::DescendingOrder);
        for (int r = 0; r < model.rowCount(); ++r) {
            const QModelIndex cat = model.index(r, CacheTreeModel::SizeColumn);
            const QModelIndex cat0 = cat.siblingAtColumn(0);
            QVERIFY(r == 0 ||
                    model.index(r - 1, CacheTreeModel::SizeColumn).data(CacheTreeModel::SortRole).toULongLong() >=
                        cat.data(CacheTreeModel::SortRole).toULongLong());
            for (int g = 1; g < model.rowCount(cat0); ++g)
                QVERIFY(
                    model.index(g - 1, CacheTreeModel::SizeColumn, cat0).data(CacheTreeModel::SortRole).toULongLong() >=
                    model.index(g, CacheTreeModel::SizeColumn, cat0).data(CacheTreeModel::SortRole).toULongLong());
        }
    }

    // The Summary tab lists the kernels the mm graph runs: the template with relu fused in, its
    // autotune choice and margin (the same join as `kiln-cli show --kernels`).
    void summaryListsTheKernelsThatRun() {
        JobControl ctl;
        auto opened = kiln::frontend::open_cache(test::h100Root().toStdString());
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().str().c_str());
        auto cache = std::make_shared<const kiln::bundle::RootOrBlob>(std::move(*opened));
        auto timings = rootTimingsOf(*cache);
        QVERIFY(timings && !timings->ops.empty());
        Inspection ins = inspectArtifact(fxEntryRequest(test::h100Root(), kMmEntry, cache, timings), ctl);
        QVERIFY2(ins.error.isEmpty(), qPrintable(ins.error));
        QVERIFY(!ins.kernelsAwaitTimings);
        verifyMmKernels(ins.summaryHtml);
    }

    // Issue 44: the kernel join takes the root's timings it is given (the window's one read), never
    // walking the root's timing sources again per entry (seconds a click at a million files). Given a
    // set with no ops while the root's timing cache is there, no autotune row; given none yet, the
    // kernels without autotune rows and the inspection says it waits for them.
    void summaryJoinsKernelsToTheGivenTimingsNotAWalk() {
        JobControl ctl;
        auto opened = kiln::frontend::open_cache(test::h100Root().toStdString());
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().str().c_str());
        auto cache = std::make_shared<const kiln::bundle::RootOrBlob>(std::move(*opened));
        auto empty = std::make_shared<const kiln::timings::TimingSet>();
        Inspection decoy = inspectArtifact(fxEntryRequest(test::h100Root(), kMmEntry, cache, empty), ctl);
        QVERIFY2(decoy.error.isEmpty(), qPrintable(decoy.error));
        QVERIFY(!decoy.kernelsAwaitTimings);
        QVERIFY2(decoy.summaryHtml.contains(QStringLiteral("Kernels launched (1)")), qPrintable(decoy.summaryHtml));
        QVERIFY(decoy.summaryHtml.contains(QStringLiteral("triton_tem_fused_mm_relu_0")));
        QVERIFY2(!decoy.summaryHtml.contains(QStringLiteral("chose this template")), qPrintable(decoy.summaryHtml));

        const InspectRequest waiting = fxEntryRequest(test::h100Root(), kMmEntry, cache, nullptr);
        Inspection early = inspectArtifact(waiting, ctl);
        QVERIFY2(early.error.isEmpty(), qPrintable(early.error));
        QVERIFY(early.kernelsAwaitTimings);
        QVERIFY(early.summaryHtml.contains(QStringLiteral("Kernels launched (1)")));
        QVERIFY(early.summaryHtml.contains(QStringLiteral("epilogue fused into the template: relu")));
        QVERIFY(!early.summaryHtml.contains(QStringLiteral("chose this template")));
        // What the window does when the read is in: the same inspection's Summary, made again.
        InspectRequest joined = waiting;
        joined.timings = rootTimingsOf(*cache);
        QVERIFY(joined.timings);
        QVERIFY(!kernelsAwaitTimings(joined, early));
        verifyMmKernels(summaryHtml(joined, early));

        // Not a graph entry, or nothing opened (a remote inspection): nothing to wait for.
        Inspection file = early;
        file.entry.reset();
        QVERIFY(!kernelsAwaitTimings(waiting, file));
        InspectRequest remote = waiting;
        remote.opened = nullptr;
        QVERIFY(!kernelsAwaitTimings(remote, early));
    }

    // Issue 44: the kernel join reads the modules beneath the root the window opened, through its
    // descriptor, and the timings the window read through it: the root renamed away after the open and
    // a decoy put at its path (a key dir of the same name, no modules, no timing cache), the Summary
    // still names the template, its config and its autotune choice.
    void summaryJoinsKernelsBeneathTheOpenedRootNotItsPath() {
        const QString mm = QStringLiteral(
            "/fxgraph/ej/fej3ypleo5ccxyjnzfv46rsawa3nerozpyvrcvtakojqw2j5kwww/"
            "jqhhvzewydfp2huj2xvssviy5thpesj2rf6mubazi544gy3cmqu");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::filesystem::path root = dir.filePath(QStringLiteral("inductor")).toStdString();
        const std::filesystem::path moved = dir.filePath(QStringLiteral("moved")).toStdString();
        std::filesystem::copy(test::h100Root().toStdString(), root, std::filesystem::copy_options::recursive);
        auto opened = kiln::frontend::open_cache(root);
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().str().c_str());
        auto cache = std::make_shared<const kiln::bundle::RootOrBlob>(std::move(*opened));
        std::filesystem::rename(root, moved);
        const std::filesystem::path decoy = root / mm.mid(1).toStdString();
        std::filesystem::create_directories(decoy.parent_path());
        std::filesystem::copy_file(moved / mm.mid(1).toStdString(), decoy);
        std::filesystem::create_directories(root / "cache");
        JobControl ctl;
        CacheNode node;
        node.kind = CacheNode::Kind::file;
        node.category = Category::fxgraph;
        const QString rootText = QString::fromStdString(root.string());
        InspectRequest req{rootText + mm, node, rootText, cache, nullptr};
        req.timings = rootTimingsOf(*cache);  // the window's one read, through the descriptor as well
        QVERIFY(req.timings && !req.timings->ops.empty());
        Inspection ins = inspectArtifact(req, ctl);
        QVERIFY2(ins.error.isEmpty(), qPrintable(ins.error));
        verifyMmKernels(ins.summaryHtml);
    }

    void objectTreeOpcodeAndComponentModels() {
        auto entry = kiln::inductor::load_graph_entry((test::h100Root() + kEntryA).toStdString());
        QVERIFY2(entry.ok(), entry.ok() ? "" : entry.error().str().c_str());
        ObjectTreeModel objects;
        QAbstractItemModelTester t1(&objects, QAbstractItemModelTester::FailureReportingMode::QtTest);
        objects.setDocument(entry->document_ptr(), entry->root(), QStringLiteral("entry"));
        QCOMPARE(objects.rowCount(), 1);
        const QModelIndex top = objects.index(0, 0);
        QVERIFY(objects.hasChildren(top));
        QVERIFY(objects.rowCount(top) > 0);

        Inspection ins;
        JobControl ctl;
        CacheNode node;
        node.kind = CacheNode::Kind::file;
        node.category = Category::fxgraph;
        ins = inspectArtifact({test::h100Root() + kEntryA, node, test::h100Root(), nullptr}, ctl);
        QVERIFY2(ins.error.isEmpty(), qPrintable(ins.error));
        QVERIFY(ins.ops && ins.ops->size() > 100);
        OpcodeModel ops;
        QAbstractItemModelTester t2(&ops, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ops.setOps(ins.ops);
        QCOMPARE(ops.index(0, OpcodeModel::OpcodeColumn).data().toString().trimmed(), QStringLiteral("PROTO"));

        KeyComponentsModel comps;
        QAbstractItemModelTester t3(&comps, QAbstractItemModelTester::FailureReportingMode::QtTest);
        comps.setComponents(ins.components);
        QVERIFY(comps.rowCount() > 100);
        QCOMPARE(comps.index(0, KeyComponentsModel::NameColumn).data().toString(), QStringLiteral("gm"));
        QCOMPARE(comps.index(0, KeyComponentsModel::HashColumn).data().toString().size(), qsizetype(51));
    }

    void portabilityModels() {
        // The h100h200 root against the H200's trace: hits, misses (two differing components) and
        // unknowns (.best_config), so every kind of row is exercised.
        auto cache = kiln::frontend::open_cache((test::fixtureDir() + "/h100h200/inductor").toStdString());
        QVERIFY(cache.ok());
        auto opened = std::make_shared<const kiln::bundle::RootOrBlob>(std::move(cache).value());
        JobControl ctl;
        const PortabilityOutcome out =
            runPortability(opened, {false, test::fixtureDir() + "/h100h200/h200/trace/warm"}, ctl);
        QVERIFY2(out.report, qPrintable(out.error));
        VerdictModel verdicts;
        QAbstractItemModelTester t1(&verdicts, QAbstractItemModelTester::FailureReportingMode::QtTest);
        verdicts.setReport(out.report, out.root);
        QCOMPARE(verdicts.rowCount(), int(out.report->items.size()));
        QVERIFY(verdicts.rowCount() > 30);
        DifferenceModel diffs;
        QAbstractItemModelTester t2(&diffs, QAbstractItemModelTester::FailureReportingMode::QtTest);
        int withRows = 0;
        for (int r = 0; r < verdicts.rowCount(); ++r) {
            diffs.setItem(verdicts.item(r));
            withRows += diffs.rowCount() > 0;
            QCOMPARE(verdicts.rowForPath(verdicts.index(r, 0).data(VerdictModel::AbsolutePathRole).toString()), r);
        }
        QVERIFY(withRows > 0);
        diffs.setItem(nullptr);
        QCOMPARE(diffs.rowCount(), 0);
        verdicts.setReport(nullptr, QString());
        QCOMPARE(verdicts.rowCount(), 0);
    }

    void hexAndDiffModels() {
        HexModel hex;
        QAbstractItemModelTester t1(&hex, QAbstractItemModelTester::FailureReportingMode::QtTest);
        hex.setBytes(QByteArray("\x80\x04\x95hello, world; seventeen+", 27));
        QCOMPARE(hex.rowCount(), 2);
        QVERIFY(hex.index(0, HexModel::HexColumn).data().toString().startsWith(QStringLiteral("80 04 95")));
        QCOMPARE(hex.index(1, HexModel::OffsetColumn).data().toString(), QStringLiteral("00000010"));

        const auto lines = sideBySideDiff("a\nb\nc\nd", "a\nx\nc\nd\ne");
        DiffLinesModel model;
        QAbstractItemModelTester t2(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setLines(lines);
        QCOMPARE(int(lines.size()), 5);
        QCOMPARE(int(lines[1].kind), int(SideBySideLine::Kind::changed));
        QCOMPARE(lines[1].a, QStringLiteral("b"));
        QCOMPARE(lines[1].b, QStringLiteral("x"));
        QCOMPARE(int(lines[4].kind), int(SideBySideLine::Kind::added));
        QCOMPARE(lines[4].lineB, 5);
    }

    void languagesFromFileNames() {
        QCOMPARE(int(languageForFile("c2x.py")), int(SourceLanguage::python));
        QCOMPARE(int(languageForFile("k.cu")), int(SourceLanguage::cpp));
        QCOMPARE(int(languageForFile("triton_poi_fused_0.ptx")), int(SourceLanguage::ptx));
        QCOMPARE(int(languageForFile("triton_poi_fused_0.ttgir")), int(SourceLanguage::mlir));
        QCOMPARE(int(languageForFile("triton_poi_fused_0.cubin")), int(SourceLanguage::plain));
    }

    void jobRunnerDropsStaleResults() {
        JobRunner runner;
        QStringList delivered;
        // The first job is slow; the second supersedes it on the same channel.
        runner.start(
            "ch", "slow",
            [](JobControl& c) {
                while (!c.cancelled()) QThread::msleep(1);
                return QString("slow");
            },
            [&](QString s) { delivered << s; });
        runner.start(
            "ch", "fast", [](JobControl&) { return QString("fast"); }, [&](QString s) { delivered << s; });
        QVERIFY(test::waitFor([&] { return !runner.isBusy(); }, 10000));
        QTest::qWait(50);
        QCOMPARE(delivered, QStringList{"fast"});
        QCOMPARE(runner.droppedCount(), quint64(1));
    }

    // The Compile times table: rows slowest first, sorts by any column, keeps persistent indexes on
    // their rows, and passes the model tester.
    void compileEntriesModelSortsAndPassesTheTester() {
        auto times = kiln::timings::read_compile_times(test::h100Root().toStdString());
        QVERIFY(times.ok());
        auto rows = compileEntryRows(*times, {});
        QVERIFY(rows.size() >= 2);
        CompileEntriesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(rows);
        QCOMPARE(model.rowCount(), int(rows.size()));
        auto secondsAt = [&](int r) {
            return model.index(r, CompileEntriesModel::TimeColumn).data(CompileEntriesModel::SortRole).toDouble();
        };
        for (int r = 1; r < model.rowCount(); ++r) QVERIFY(secondsAt(r - 1) >= secondsAt(r));
        {  // the view's first sort (slowest first) finds them in order: no layout change to redo
            QSignalSpy moved(&model, &QAbstractItemModel::layoutChanged);
            model.sort(CompileEntriesModel::TimeColumn, Qt::DescendingOrder);
            QCOMPARE(moved.count(), 0);
        }
        const QPersistentModelIndex slowest = model.index(0, 0);
        const QString slowestPath = slowest.data(CompileEntriesModel::PathRole).toString();
        model.sort(CompileEntriesModel::TimeColumn, Qt::AscendingOrder);
        for (int r = 1; r < model.rowCount(); ++r) QVERIFY(secondsAt(r - 1) <= secondsAt(r));
        QCOMPARE(slowest.row(), model.rowCount() - 1);
        QCOMPARE(slowest.data(CompileEntriesModel::PathRole).toString(), slowestPath);
        model.sort(CompileEntriesModel::KeyColumn, Qt::AscendingOrder);
        for (int r = 1; r < model.rowCount(); ++r)
            QVERIFY(model.index(r - 1, 2).data().toString() <= model.index(r, 2).data().toString());
        QCOMPARE(model.index(slowest.row(), 0).data(CompileEntriesModel::PathRole).toString(), slowestPath);
    }

    // Background work yields to the UI thread: its pool thread, and the threads core work starts from
    // it, run at nice +10 over the UI thread (capped at 19), so a woken UI thread gets a core first.
    void jobRunnerRunsWorkBelowTheUiThread() {
        const int ui = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
        JobRunner runner;
        std::pair<int, int> seen{-100, -100};
        runner.start(
            "nice", "nice",
            [](JobControl&) {
                const int pool = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
                int child = -100;
                std::thread([&] {
                    child = ::getpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)));
                }).join();
                return std::pair<int, int>{pool, child};
            },
            [&](std::pair<int, int> r) { seen = r; });
        QVERIFY(test::waitFor([&] { return !runner.isBusy(); }, 10000));
        QCOMPARE(seen.first, std::min(19, ui + 10));
        QCOMPARE(seen.second, seen.first);
    }
};

QTEST_MAIN(ModelsTest)
#include "models_test.moc"
