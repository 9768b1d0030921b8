// The desktop app end to end, offscreen, on the real fixtures: counts in the tree, the guard
// panel against `kiln-cli guards`, the diff of the changed-config pair, a responsive UI thread
// while scanning and decoding, live updates that keep the selection, and a rendered window.
#include <algorithm>
#include <ctime>

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QStatusBar>
#include <QStyleOptionViewItem>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeView>

#include "ui/browser/cache_browser.hpp"
#include "ui/browser/cache_tree_model.hpp"
#include "ui/diff/diff_view.hpp"
#include "ui/diff/entry_diff.hpp"
#include "ui/inspector/guards_panel.hpp"
#include "ui/inspector/inspector_widget.hpp"
#include "ui/inspector/key_components_model.hpp"
#include "ui/jobs/job_control.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/overview/overview_panel.hpp"
#include "ui/runs/handback_bar.hpp"
#include "ui/runs/retune_dialog.hpp"
#include "ui/shell/install_views.hpp"
#include "ui/shell/main_window.hpp"
#include "ui/status/status_panel.hpp"
#include "ui/tuning/root_timings.hpp"
#include "ui/tuning/timings_panel.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;
using kiln::inductor::Category;

namespace {

// Measures the longest gap between ticks of a 5 ms timer on the UI thread.
// The UI thread's longest stretch between two 5 ms timer ticks: wall time (what a user sees, which
// includes waiting for a core on a loaded machine) and the UI thread's own CPU time in that stretch
// (work done on the UI thread, which is what these tests forbid; CI machines are shared and loaded).
class GapMeter {
public:
    GapMeter() {
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            const qint64 now = clock_.nsecsElapsed();
            const qint64 cpu = threadCpuNs();
            if (last_ >= 0) {
                maxGapNs_ = std::max(maxGapNs_, now - last_);
                maxBusyNs_ = std::max(maxBusyNs_, cpu - lastCpu_);
            }
            last_ = now;
            lastCpu_ = cpu;
        });
        clock_.start();
        timer_.start(5);
    }
    double maxGapMs() const { return double(maxGapNs_) / 1e6; }
    double maxBusyMs() const { return double(maxBusyNs_) / 1e6; }
    static qint64 threadCpuNs() {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return qint64(ts.tv_sec) * 1000000000 + ts.tv_nsec;
    }

private:
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = -1, lastCpu_ = 0;
    qint64 maxGapNs_ = 0, maxBusyNs_ = 0;
};

QModelIndex categoryRow(CacheBrowser* b, Category c) {
    auto* m = b->model();
    for (int r = 0; r < m->rowCount(); ++r)
        if (m->index(r, 0).data(CacheTreeModel::CategoryRole).toInt() == int(c)) return m->index(r, 0);
    return {};
}

bool scanned(MainWindow& w) { return w.browser()->tree() && !w.jobs()->isRunning("scan"); }

const char* kChangedA =
    "/fxgraph/bt/fbthtgcfn6jl7ghas2zkbej2nhbianoo76mqbeuwqawaoxcxbhv5/"
    "ifr5l7l6lsmupe6g3absercx7t4ths7oibbc3wcr2ytojy7hsse";
const char* kMmEntry =  // its template kernel's autotune row is in the root's timing cache
    "/fxgraph/ej/fej3ypleo5ccxyjnzfv46rsawa3nerozpyvrcvtakojqw2j5kwww/"
    "jqhhvzewydfp2huj2xvssviy5thpesj2rf6mubazi544gy3cmqu";
const char* kChangedB =
    "/fxgraph/mo/fmo2n45uv3b62qq26v3dxc7irosaefewdkqwv5x66fwyzrtffovi/"
    "gusz2kto372vz7hr6ujg6f6nrlassse4tjudf5uyhb23g56r2o5";
const char* kBigEntry =
    "/fxgraph/yg/fygldk366xeatlz7nfvy2zsl3k55ym5kcn2c366ejalbhhojodnz/"
    "xqe7kzjyrq37sxmogzsv67fvhni3elqmbax3poy54hxvh7comxf";

}  // namespace

class MainWindowTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("KilnTest");  // keep the user's settings out of it
        QVERIFY2(QDir(test::h100Root()).exists(), "KILN_FIXTURE_DIR must point at the extracted fixtures");
    }

    void treeShowsFixtureCountsAndUiStaysResponsive() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(300);  // first paint and font loading happen before the measured part
        GapMeter meter;
        w.openRoot(test::h100Root());
        QVERIFY(test::waitFor([&] { return scanned(w); }));
        QTest::qWait(20);
        qInfo("max UI-thread gap while scanning: %.1f ms wall, %.1f ms of UI-thread CPU", meter.maxGapMs(),
              meter.maxBusyMs());
        QVERIFY2(meter.maxBusyMs() < 50.0, qPrintable(QString("UI thread busy %1 ms").arg(meter.maxBusyMs())));

        // The tree's categories against `kiln-cli stats --json` on the same cache.
        const QJsonObject stats = test::runCliJson({"stats", test::h100Root(), "--json"}).object();
        QVERIFY(!stats.isEmpty());
        const auto tree = w.browser()->tree();
        const QJsonObject cats = stats["categories"].toObject();
        for (auto it = cats.begin(); it != cats.end(); ++it) {
            const auto c = kiln::inductor::category_from_name(it.key().toStdString());
            QVERIFY(c);
            QCOMPARE(qint64(tree->stats[*c].files), it.value().toObject()["files"].toInteger());
            QCOMPARE(qint64(tree->stats[*c].bytes), it.value().toObject()["bytes"].toInteger());
            // The category rows the user sees hold exactly those files and bytes.
            const QModelIndex row = categoryRow(w.browser(), *c);
            QVERIFY(row.isValid());
            const CacheNode node = w.browser()->model()->item(row);
            QCOMPARE(qint64(node.files), it.value().toObject()["files"].toInteger());
            QCOMPARE(qint64(node.bytes), it.value().toObject()["bytes"].toInteger());
        }
        QCOMPARE(qint64(tree->files(0)), stats["total"].toObject()["files"].toInteger());
        QCOMPARE(qint64(tree->bytes(0)), stats["total"].toObject()["bytes"].toInteger());
        // The same byte formatting as `kiln-cli stats` (decimal units): its total line's size.
        const QString human = test::runCli({"stats", test::h100Root()});
        const QString total = formatBytes(tree->stats.total_bytes);
        QVERIFY2(human.contains(QRegularExpression("\\ntotal +1067 +" + QRegularExpression::escape(total) + "\\n")),
                 qPrintable(total + " not in:\n" + human));
        QVERIFY(w.statusPanel()->totalsText().contains(total));
        // What the user sees: 13 key dirs under fxgraph, 114 kernel dirs under triton_compiled.
        QCOMPARE(w.browser()->model()->rowCount(categoryRow(w.browser(), Category::fxgraph)), 13);
        QCOMPARE(w.browser()->model()->rowCount(categoryRow(w.browser(), Category::triton_compiled)), 114);
        QVERIFY(w.statusPanel()->totalsText().contains("1067 files"));
    }

    void guardsPanelServesWhatTheCliServes() {
        MainWindow w;
        w.show();
        w.openRoot(test::twoEntriesRoot());
        QVERIFY(test::waitFor([&] { return scanned(w); }));
        const QString keyDir =
            test::twoEntriesRoot() + "/fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh";
        QVERIFY(w.browser()->selectPath(keyDir));
        GuardsPanel* g = w.inspector()->guardsPanel();
        QVERIFY(test::waitFor([&] { return g->keyDir() == keyDir && g->field("t0"); }));
        QTest::keyClicks(g->field("t0"), "1000");
        QVERIFY(test::waitFor([&] { return g->outcome().values == QVector<qint64>{1000}; }));

        const QJsonObject cli = test::runCliJson({"guards", keyDir, "--sizes", "1000", "--json"}).object();
        QVERIFY(!cli.isEmpty());
        QCOMPARE(g->outcome().served, cli["served"].toString());
        QCOMPARE(g->outcome().ambiguous, cli["ambiguous"].toBool());
        QVERIFY(g->outcome().ambiguous);
        const QJsonArray entries = cli["entries"].toArray();
        QCOMPARE(g->outcome().rows.size(), entries.size());
        for (int i = 0; i < entries.size(); ++i) {
            QCOMPARE(g->outcome().rows[i].file, entries[i].toObject()["file"].toString());
            QCOMPARE(g->outcome().rows[i].pass, entries[i].toObject()["pass"].toBool());
        }
        // The highlighted row is the served entry.
        QTableWidget* t = g->table();
        int highlighted = -1;
        for (int r = 0; r < t->rowCount(); ++r)
            if (t->item(r, 0)->font().bold()) highlighted = r;
        QVERIFY(highlighted >= 0);
        QVERIFY(t->item(highlighted, 0)->text().startsWith(cli["served"].toString()));
        QVERIFY(g->verdictText().contains("Ambiguous"));

        // Beyond 2**31: only the unbounded entry holds.
        g->field("t0")->setText("2147483664");
        QVERIFY(test::waitFor([&] { return g->outcome().values == QVector<qint64>{2147483664LL}; }));
        const QJsonObject cli2 = test::runCliJson({"guards", keyDir, "--sizes", "2147483664", "--json"}).object();
        QCOMPARE(g->outcome().served, cli2["served"].toString());
        QVERIFY(!g->outcome().ambiguous);
    }

    void diffOfTheChangedConfigPair() {
        MainWindow w;
        w.show();
        w.openRoot(test::h100Root());
        QVERIFY(test::waitFor([&] { return scanned(w); }));
        DiffView* d = w.diffView();
        d->setSideA(test::h100Root() + kChangedA);
        d->setSideB(test::h100Root() + kChangedB);
        bool done = false;
        connect(d, &DiffView::compared, this, [&] { done = true; });
        d->compare();
        QVERIFY(test::waitFor([&] { return done; }));
        QVERIFY2(d->outcome().error.isEmpty(), qPrintable(d->outcome().error));
        QStringList names;
        for (const auto& c : d->outcome().changed) names << c.component;
        names.sort();
        QCOMPARE(names,
                 (QStringList{"inductor_config[max_fusion_size]", "inductor_config[realize_opcount_threshold]"}));
        QCOMPARE(d->changesTable()->rowCount(), 2);
        QVERIFY(d->outcome().same > 100);
    }

    // What a new user hit: the Diff cut long values (a TensorMetadata is wider than its column) and showed
    // bytes as mojibake. Every value but the graph's code reads whole, wrapped in a row tall enough; the
    // Key components tab shows the selected value whole below its table, `torch_version` escaped.
    void diffAndKeyComponentsShowWholeValues() {
        MainWindow w;
        w.resize(1400, 860);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.openRoot(test::h100Root());
        QVERIFY(test::waitFor([&] { return scanned(w); }));
        DiffView* d = w.diffView();
        w.workspace()->setCurrentWidget(d);
        d->setSideA(test::h100Root() + kChangedB);  // the pointwise graph f
        d->setSideB(test::h100Root() + "/fxgraph/ej/fej3ypleo5ccxyjnzfv46rsawa3nerozpyvrcvtakojqw2j5kwww");  // mm
        bool done = false;
        connect(d, &DiffView::compared, this, [&] { done = true; });
        d->compare();
        QVERIFY(test::waitFor([&] { return done; }));
        QTest::qWait(50);
        QTableWidget* t = d->changesTable();
        int checked = 0;
        for (int r = 0; r < t->rowCount(); ++r) {
            const auto& c = d->outcome().changed[r];
            if (c.component == "gm") continue;
            for (int col : {1, 2}) {
                const QString value = col == 1 ? c.a : c.b;
                QCOMPARE(t->item(r, col)->text(), value);
                // As tall as the delegate needs for the whole value at the column's width, and wrapped:
                // a TensorMetadata is wider than its column.
                QStyleOptionViewItem option;
                option.initFrom(t);
                option.rect = QRect(0, 0, t->columnWidth(col), 100000);
                option.features |= QStyleOptionViewItem::WrapText;
                option.font = t->font();
                const int need = t->itemDelegate()->sizeHint(option, t->model()->index(r, col)).height();
                QVERIFY2(
                    t->rowHeight(r) >= need,
                    qPrintable(
                        QStringLiteral("%1: row %2 px, text %3 px").arg(c.component).arg(t->rowHeight(r)).arg(need)));
                if (value.startsWith("TensorMetadata")) {
                    QVERIFY2(t->rowHeight(r) >= 2 * t->fontMetrics().height(), qPrintable(c.component));
                    ++checked;
                }
            }
        }
        QVERIFY(checked >= 2);  // example_inputs: wider than a column, shown whole

        // Key components: torch_version (the torch_key digest) escaped, every component whole below.
        QString shown;
        connect(&w, &MainWindow::inspectionShown, this, [&](const QString& p) { shown = p; });
        const QString entry = test::h100Root() + kChangedA;
        QVERIFY(w.browser()->selectPath(entry));
        QVERIFY(test::waitFor([&] { return shown == entry && !w.jobs()->isBusy(); }));
        QTableView* comps = w.inspector()->componentsView();
        auto* m = comps->model();
        bool sawTorch = false;
        for (int r = 0; r < m->rowCount(); ++r) {
            const QString name = m->index(r, KeyComponentsModel::NameColumn).data().toString();
            const QString value = m->index(r, KeyComponentsModel::ValueColumn).data().toString();
            QVERIFY2(!value.contains(QChar(0xFFFD)), qPrintable(name));
            for (QChar ch : value) QVERIFY2(ch.unicode() >= 0x20 || ch == '\t', qPrintable(name));
            if (name == "torch_version") {
                sawTorch = true;
                QVERIFY2(value.startsWith("(binary) ") && value.contains("\\ufffd"), qPrintable(value));
            }
            if (name == "system_info[version]" || name == "gm") {
                comps->setCurrentIndex(m->index(r, 0));
                const QString whole = w.inspector()->componentValueView()->toPlainText();
                const QString full = m->index(r, KeyComponentsModel::ValueColumn).data(Qt::ToolTipRole).toString();
                QVERIFY2(whole.endsWith(full.left(20000)), qPrintable(name));
                if (name == "gm") QVERIFY(whole.count('\n') > 5);
            }
        }
        QVERIFY(sawTorch);
    }

    // What a new user hit: the trace-event picker listed keys without function names. Each event says the
    // function whose compile it belongs to (dynamo_start's frame), as the compile timeline does.
    void traceEventPickerNamesTheFunction() {
        JobControl ctl;
        const QString cold = test::fixtureDir() + QStringLiteral("/h100/trace/cold");
        const TraceEvents t = loadTraceEvents(cold, ctl);
        QVERIFY2(t.error.isEmpty(), qPrintable(t.error));
        QVERIFY(t.events.size() >= 12);
        for (const auto& e : t.events) {
            QVERIFY2(!e.function.isEmpty(), qPrintable(e.label));
            QVERIFY2(e.label.contains(e.function + QStringLiteral("  fx_graph_cache_")), qPrintable(e.label));
        }
        QVERIFY(std::any_of(t.events.begin(), t.events.end(), [](const TraceEvent& e) {
            return e.function.startsWith(QStringLiteral("mm (gen_inductor_cache.py:"));
        }));
        JobRunner runner;
        DiffView d(&runner);
        bool loaded = false;
        connect(&d, &DiffView::traceLoaded, this, [&] { loaded = true; });
        d.loadTrace(cold);
        QVERIFY(test::waitFor([&] { return loaded; }));
        auto* picker = d.findChild<QComboBox*>();
        QVERIFY(picker && picker->count() == t.events.size());
        QVERIFY2(picker->itemText(0).contains(t.events.front().function), qPrintable(picker->itemText(0)));
        // Until one is picked the picker says how many events the log holds, not a generic hint.
        QCOMPARE(picker->currentIndex(), -1);
        QVERIFY2(
            picker->placeholderText().startsWith(QString::number(t.events.size()) + QStringLiteral(" cache events")),
            qPrintable(picker->placeholderText()));
        // Picking an event by its key (a miss first) shows it in the picker and makes it side B.
        int miss = -1;
        for (int i = 0; i < t.events.size() && miss < 0; ++i)
            if (t.events[i].miss) miss = i;
        QVERIFY(miss >= 0);
        QCOMPARE(d.traceEventOf(t.events[miss].key), miss);
        QCOMPARE(d.traceEventOf(QStringLiteral("fno-such-key")), -1);
        d.pickTraceEvent(miss);
        QCOMPARE(picker->currentIndex(), miss);
        const auto edits = d.findChildren<QLineEdit*>();
        QVERIFY(std::any_of(edits.begin(), edits.end(),
                            [&](const QLineEdit* e) { return e->text() == t.events[miss].spec; }));
    }

    // What a new user hit: `kiln --select PATH` with a relative path was silently ignored. Relative to the
    // root or to the current folder it selects the entry; a path that matches nothing is said.
    void selectTakesRelativePathsAndSaysWhenNothingMatches() {
        const QString rel = QString::fromLatin1(kChangedA).mid(1);  // "fxgraph/bt/..."
        {
            MainWindow w;
            w.selectWhenScanned(rel);
            w.openRoot(test::h100Root());
            QVERIFY(test::waitFor(
                [&] { return scanned(w) && w.browser()->currentPath() == test::h100Root() + kChangedA; }));
        }
        {
            const QString cwd = QDir::currentPath();
            QVERIFY(QDir::setCurrent(QFileInfo(test::h100Root()).path()));  // the folder above the root
            MainWindow w;
            w.selectWhenScanned(QStringLiteral("inductor/") + rel);
            w.openRoot(test::h100Root());
            const bool selected =
                test::waitFor([&] { return scanned(w) && w.browser()->currentPath() == test::h100Root() + kChangedA; });
            QDir::setCurrent(cwd);
            QVERIFY(selected);
        }
        {
            MainWindow w;
            w.selectWhenScanned(QStringLiteral("fxgraph/no/such/entry"));
            w.openRoot(test::h100Root());
            QVERIFY(test::waitFor([&] { return scanned(w); }));
            const QString said = w.statusBar()->currentMessage();
            QVERIFY2(said.contains(QStringLiteral("--select fxgraph/no/such/entry: nothing in")), qPrintable(said));
            QVERIFY(w.browser()->currentPath().isEmpty());
        }
    }

    void gapMeterSeesWorkOnTheUiThread() {
        // The meter the responsiveness checks rely on: 80 ms of work on the UI thread shows as busy time.
        // The work is 80 ms of the thread's own CPU (a wall-clock spin on a loaded machine is less).
        GapMeter meter;
        QTimer::singleShot(20, [] {
            const qint64 until = GapMeter::threadCpuNs() + 80'000'000;
            volatile unsigned sink = 0;
            while (GapMeter::threadCpuNs() < until) sink = sink + 1;
        });
        QVERIFY(test::waitFor([&] { return meter.maxBusyMs() > 0 && meter.maxGapMs() > 80; }, 10000));
        QTest::qWait(20);
        QVERIFY2(meter.maxBusyMs() > 60.0, qPrintable(QString("busy %1 ms").arg(meter.maxBusyMs())));
        QVERIFY(meter.maxGapMs() >= meter.maxBusyMs() * 0.9);
    }

    void bigEntryDecodesOffThread() {
        MainWindow w;
        w.show();
        w.openRoot(test::h100Root());
        QVERIFY(test::waitFor([&] { return scanned(w); }));
        // The Overview's sections finish after the scan; their results, shown on the UI thread, are
        // not this entry's decode: measure once they are in.
        QVERIFY(test::waitFor([&] { return !w.jobs()->isBusy(); }, 60000));
        const QString path = test::h100Root() + kBigEntry;
        QVERIFY(QFileInfo(path).size() > 8000000);
        QString shown;
        connect(&w, &MainWindow::inspectionShown, this, [&](const QString& p) { shown = p; });
        GapMeter meter;
        QVERIFY(w.browser()->selectPath(path));
        QVERIFY(test::waitFor([&] { return shown == path; }));
        QTest::qWait(20);
        qInfo("max UI-thread gap while opening a %lld-byte entry: %.1f ms wall, %.1f ms of UI-thread CPU",
              QFileInfo(path).size(), meter.maxGapMs(), meter.maxBusyMs());
        QVERIFY2(meter.maxBusyMs() < 50.0, qPrintable(QString("UI thread busy %1 ms").arg(meter.maxBusyMs())));
        QVERIFY(w.inspector()->summaryView()->toPlainText().contains("CompiledFxGraph"));
        // Every tab renders the entry: switch through them and grab each.
        for (int i = 0; i < w.inspector()->count(); ++i) {
            w.inspector()->setCurrentIndex(i);
            QVERIFY(!w.grab().isNull());
        }
    }

    // Issue 44: the inspector's kernel join takes the window's one read of the root's timings
    // (RootTimings) instead of walking the root's timing sources per selected entry: an entry selected
    // while that read runs shows its kernels, then their autotune rows once the read is in; selecting
    // entries starts no read of the root's timings.
    void inspectorJoinsKernelsToTheWindowsTimings() {
        MainWindow w;
        w.show();
        w.openRoot(test::h100Root());
        RootTimings* timings = w.rootTimings();
        QVERIFY(test::waitFor([&] { return scanned(w) && timings->result() != nullptr; }));
        timings->reload();  // the read runs again: the selection comes before its result, or races it
        const int reads = timings->readsStarted();
        QVERIFY(!timings->result());
        QString shown;
        connect(&w, &MainWindow::inspectionShown, this, [&](const QString& p) { shown = p; });
        auto summary = [&] { return w.inspector()->summaryView()->toPlainText(); };
        const QString mm = test::h100Root() + kMmEntry;
        QVERIFY(w.browser()->selectPath(mm));
        QVERIFY2(test::waitFor([&] { return shown == mm && summary().contains("chose this template"); }),
                 qPrintable(summary()));
        QVERIFY(summary().contains("triton_tem_fused_mm_relu_0"));
        QCOMPARE(timings->readsStarted(), reads);

        // The read is in: another entry and back, the Summary joins with the inspection itself.
        const QString other = test::h100Root() + kChangedA;
        QVERIFY(w.browser()->selectPath(other));
        QVERIFY(test::waitFor([&] { return shown == other; }));
        QVERIFY(w.browser()->selectPath(mm));
        QVERIFY(test::waitFor([&] { return shown == mm; }));
        QVERIFY2(summary().contains("chose this template"), qPrintable(summary()));
        QVERIFY(!summary().contains("Autotune rows follow"));
        QCOMPARE(timings->readsStarted(), reads);
    }

    // Issue 44: the "used by graph" marks (another read of every graph entry) wait for the first screen:
    // the root's timings are loaded only after the Overview is complete, with the marks in.
    void usedByMarksWaitForTheOverview() {
        MainWindow w;
        w.show();
        bool complete = false, loadedBeforeComplete = false, loaded = false;
        connect(w.overviewPanel(), &OverviewPanel::computed, this, [&] { complete = true; });
        connect(w.rootTimings(), &RootTimings::loaded, this, [&](const std::shared_ptr<const RootTimingsResult>&) {
            loaded = true;
            loadedBeforeComplete = !complete;
        });
        w.openRoot(test::h100Root());
        w.rootTimings()->request();  // as the Autotune view asks at once
        QVERIFY(test::waitFor([&] { return loaded; }));
        QVERIFY(complete);
        QVERIFY(!loadedBeforeComplete);
        // The marks are in: the mm template's choice is used by its graph.
        bool marked = false;
        for (const auto& op : w.rootTimings()->result()->set->ops)
            for (const auto& c : op.choices) marked = marked || !c.used_by.empty();
        QVERIFY(marked);
    }

    void liveUpdateKeepsSelection() {
        // A copy of the small fixture that we can write to.
        const QString scratch = test::binaryDir() + "/ui-test-scratch/live";
        QDir(scratch).removeRecursively();
        QVERIFY(QDir().mkpath(scratch));
        QVERIFY(QProcess::execute("cp", {"-a", test::twoEntriesRoot(), scratch}) == 0);
        const QString root = scratch + "/inductor";
        MainWindow w;
        w.show();
        w.openRoot(root);
        QVERIFY(test::waitFor([&] { return scanned(w); }));
        const QString keyDir = root + "/fxgraph/sb/fsbnatbp6m2keoozno6te7auv6dbw22iozfrx4joxfgl6rn734eh";
        QVERIFY(w.browser()->selectPath(keyDir));
        const auto before = w.browser()->tree();
        // Inductor writes a new module: the watcher notices, rescans once, and the selection stays.
        QFile f(root + "/zz/czzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz.py");
        QVERIFY(QDir().mkpath(root + "/zz"));
        QVERIFY(QDir(root).exists("zz"));
        QTest::qWait(100);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("import triton\n");
        f.close();
        QVERIFY(
            test::waitFor([&] { return scanned(w) && w.browser()->tree()->files(0) == before->files(0) + 1; }, 20000));
        QCOMPARE(w.browser()->currentPath(), keyDir);
        QDir(scratch).removeRecursively();
    }

    void windowRendersToPng() {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        w.openRoot(test::h100Root());
        QVERIFY(test::waitFor([&] { return scanned(w); }));
        w.browser()->view()->expandToDepth(0);
        const QString out = test::binaryDir() + "/test-artifacts/main_window.png";
        QVERIFY(QDir().mkpath(QFileInfo(out).path()));
        const QPixmap pix = w.grab();
        QVERIFY(pix.width() >= 1000);
        QVERIFY(pix.save(out, "PNG"));
        QVERIFY(QFileInfo(out).size() > 10'000);
        qInfo("window rendered to %s", qPrintable(out));
    }

    // The shell joins the Autotune views with the runs (neither feature includes the other): the
    // hand-back bar below the Autotune results, the Tune menu's run entries before Compare ranks…,
    // and the view's Re-tune button opening the Re-tune dialog.
    void shellJoinsTheAutotuneViewsWithTheRuns() {
        MainWindow w;
        const InstalledViews v = installAllViews(w);
        QVERIFY(v.autotune.timings);
        QVERIFY(v.autotune.timings->findChild<HandbackBar*>());
        QStringList texts;
        for (const QAction* a : v.autotune.menu->actions()) texts << a->text();
        QCOMPARE(texts,
                 QStringList({QStringLiteral("New tuning session…"), QStringLiteral("Re-tune on this machine…"),
                              QStringLiteral("Recompile selected source…"),
                              QStringLiteral("Re-benchmark selected module…"), QStringLiteral("Compare ranks…")}));
        QVERIFY(!w.findChild<RetuneDialog*>());
        emit v.autotune.timings->retuneRequested();
        auto* dlg = w.findChild<RetuneDialog*>();
        QVERIFY(dlg);
        QVERIFY(dlg->testAttribute(Qt::WA_DeleteOnClose));
        dlg->close();
    }
};

QTEST_MAIN(MainWindowTest)
#include "main_window_test.moc"
