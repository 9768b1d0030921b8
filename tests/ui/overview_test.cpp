// The desktop app's first sight, offscreen on the real fixtures: the Overview's numbers against
// `kiln-cli stats`, `timings` and `portable` run as real processes; the Compile timeline on the H100
// fixture's cold/warm/changed traces (hits and misses shown = the cache events in the logs); Compare
// devices on the H100/H200 fixture; link, chart text, diff and syntax contrast in both themes; the menu order; keyboard
// navigation into every view; the window's first-start size and its state on the next start.
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTreeView>
#include <QTreeWidget>

#include <qcustomplot.h>

#include "ui/browser/cache_browser.hpp"
#include "ui/browser/cache_tree_model.hpp"
#include "ui/charts/choice_bar_chart.hpp"
#include "ui/diff/diff_lines_model.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/overview/overview_panel.hpp"
#include "ui/shell/main_window.hpp"
#include "ui/theme/palette.hpp"
#include "ui/timeline/timeline_install.hpp"
#include "ui/timeline/timeline_panel.hpp"
#include "ui/tuning/autotune_compare_model.hpp"
#include "ui/tuning/autotune_compare_panel.hpp"
#include "ui/tuning/autotune_table_model.hpp"
#include "ui/tuning/root_timings.hpp"
#include "ui/tuning/timings_compile_panel.hpp"
#include "ui/tuning/timings_install.hpp"
#include "ui/tuning/timings_panel.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;

namespace {

// WCAG 2 relative luminance and contrast ratio.
double luminance(const QColor& c) {
    auto ch = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF());
}
double contrast(const QColor& a, const QColor& b) {
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// Cache events as the log holds them: one artifact record per hit, miss or bypass.
int logEvents(const QString& dir, const QString& name) {
    int n = 0;
    for (const QString& f : QDir(dir).entryList({"*.log"}, QDir::Files)) {
        QFile file(QDir(dir).filePath(f));
        if (!file.open(QIODevice::ReadOnly)) return -1;
        const QString needle = QStringLiteral("{\"artifact\": {\"name\": \"%1\"").arg(name);
        while (!file.atEnd())
            if (QString::fromUtf8(file.readLine()).contains(needle)) ++n;
    }
    return n;
}

int shownEvents(QTreeWidget* tree, const QString& cache, const QString& state) {
    int n = 0;
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        for (int j = 0; j < tree->topLevelItem(i)->childCount(); ++j) {
            const QTreeWidgetItem* e = tree->topLevelItem(i)->child(j);
            n += e->data(0, TimelinePanel::CacheRole).toString() == cache &&
                 e->data(0, TimelinePanel::StateRole).toString() == state;
        }
    return n;
}

struct Window {
    MainWindow w;
    AutotuneViews views;
    TimelinePanel* timeline;
    Window() : views(installAutotuneViews(w)), timeline(installTimelineView(w)) {}
};

}  // namespace

class OverviewTest : public QObject {
    Q_OBJECT
    QTemporaryDir settingsDir_;

private slots:
    void initTestCase() {
        // A scratch settings file: the user's own never take part, and every test starts fresh.
        QCoreApplication::setOrganizationName("KilnOverviewTest");
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir_.path());
        qunsetenv("TORCHINDUCTOR_REDIS_URL");
        QVERIFY(QDir(test::h100Root()).exists());
    }

    void overviewNumbersAreTheClis() {
        Window win;
        win.w.show();
        win.w.openRoot(test::h100Root());
        OverviewPanel* panel = win.w.overviewPanel();
        QCOMPARE(win.w.workspace()->currentWidget(), panel);  // the first thing the user sees
        QVERIFY(test::waitFor([&] { return panel->overview() != nullptr; }));
        const auto& o = *panel->overview();

        const QJsonObject stats = test::runCliJson({"stats", test::h100Root(), "--json"}).object();
        QCOMPARE(qint64(o.stats.total_files), stats["total"].toObject()["files"].toInteger());
        QCOMPARE(qint64(o.stats.total_bytes), stats["total"].toObject()["bytes"].toInteger());
        const QJsonObject cats = stats["categories"].toObject();
        QCOMPARE(qint64(o.entries.size()), cats["fxgraph"].toObject()["files"].toInteger());
        QCOMPARE(qint64(o.aot_entries), cats["aotautograd"].toObject()["files"].toInteger());

        // Autotuned ops: `timings` ops with two or more choices, the same winner.
        const QJsonArray ops = test::runCliJson({"timings", test::h100Root(), "--json"}).object()["ops"].toArray();
        QStringList cliWinners, shownWinners;
        for (const auto& op : ops)
            if (op.toObject()["choices"].toArray().size() >= 2) cliWinners << op.toObject()["best"].toString();
        for (const auto& op : o.ops) shownWinners << QString::fromStdString(op.winner);
        QVERIFY(!cliWinners.isEmpty());
        QCOMPARE(shownWinners, cliWinners);

        // Portability against this machine: `portable --target local`'s counts and its summary word for word
        // (the window judges the entries from its one read of them, the CLI reads each itself).
        const QJsonObject summary = test::runCliJson({"portable", test::h100Root(), "--target", "local", "--json"})
                                        .object()["summary"]
                                        .toObject();
        const QJsonObject counts = summary["counts"].toObject();
        const auto fx = counts["fxgraph"].toObject(), aot = counts["aotautograd"].toObject();
        QCOMPARE(qint64(o.portability.graph_entries), fx["total"].toInteger() + aot["total"].toInteger());
        QCOMPARE(qint64(o.portability.hit), fx["hit"].toInteger() + aot["hit"].toInteger());
        QStringList shownLines{QString::fromStdString(o.portability.answer)};
        for (const auto& l : o.portability.lines) shownLines << QString::fromStdString(l);
        QStringList cliLines;
        for (const auto& l : summary["text"].toArray()) cliLines << l.toString();
        QVERIFY(cliLines.size() >= 2);
        QCOMPARE(shownLines, cliLines);

        // Eviction's dry run at the default limit: `evict --older-than 30d`.
        const QJsonObject ev = test::runCliJson({"evict", test::h100Root(), "--older-than", "30d", "--json"}).object();
        QCOMPARE(qint64(o.evict.freed_bytes), ev["freed_bytes"].toInteger());
        QCOMPARE(qint64(o.evict.groups), qint64(ev["removed"].toArray().size()));

        // Health: what `kiln-cli check` reports (the fixture is healthy).
        const QJsonObject chk = test::runCliJson({"check", test::h100Root(), "--json"}).object();
        QCOMPARE(qint64(o.health.problems), qint64(chk["problems"].toArray().size()));
        QVERIFY(o.health.error.empty());

        // What the user reads: the numbers, the slowest compile by name, links to the views.
        const QString text = panel->view()->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("%1 of %2 graph entries can hit here")
                                   .arg(o.portability.hit)
                                   .arg(o.portability.graph_entries)),
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Slowest compiles: c (gen_inductor_cache.py:118) 47.7 s")));
        QVERIFY(text.contains(QString::number(o.stats.total_files) + " files"));
        QVERIFY2(
            text.contains(QStringLiteral("No problems: kiln-cli check ") + test::h100Root() + QStringLiteral(" finds")),
            qPrintable(text));
        const QString html = panel->view()->toHtml();
        for (const char* href : {"kiln-view:Compile times", "kiln-view:Compile timeline", "kiln-category:fxgraph",
                                 "kiln-op:", "kiln-path:"})
            QVERIFY2(html.contains(QLatin1String(href)), href);

        // A link goes to its view: an entry selects it in the browser, a view link switches tab.
        QVERIFY(test::waitFor([&] { return win.w.browser()->tree() != nullptr; }));
        const QString slowest = QString::fromStdString(o.entries.front().path);
        win.w.onLink(QUrl(QStringLiteral("kiln-path:") + slowest));
        QCOMPARE(win.w.browser()->currentPath(), slowest);
        QCOMPARE(win.w.workspace()->tabText(win.w.workspace()->currentIndex()), QStringLiteral("Cache"));
        win.w.onLink(QUrl(QStringLiteral("kiln-view:Compile timeline")));
        QCOMPARE(win.w.workspace()->currentWidget(), win.timeline);
    }

    // Issue 18: the browser names graph entries the way `kiln-cli ls` labels them, the hash in its own
    // column, and its filter finds an entry by that name.
    void browserNamesGraphEntriesAsLs() {
        Window win;
        win.w.show();
        win.w.openRoot(test::h100Root());
        CacheTreeModel* model = win.w.browser()->model();
        QVERIFY(test::waitFor([&] { return model->entryLabels() != nullptr; }));
        const QJsonArray rows = test::runCliJson({"ls", test::h100Root(), "--json"}).object()["entries"].toArray();
        QVERIFY(rows.size() > 20);
        const QString root = QDir::cleanPath(test::h100Root());
        QString someFunction;
        for (const auto& v : rows) {
            const QJsonObject r = v.toObject();
            const QModelIndex i = model->indexForPath(root + "/" + r["path"].toString());
            QVERIFY2(i.isValid(), qPrintable(r["path"].toString()));
            QCOMPARE(i.siblingAtColumn(CacheTreeModel::NameColumn).data().toString(), r["label"].toString());
            QCOMPARE(i.siblingAtColumn(CacheTreeModel::KeyColumn).data().toString(), r["key"].toString());
            QVERIFY(r["label"].toString() != r["key"].toString());  // a name, not the hash
            if (r["function"].toString().size() > someFunction.size()) someFunction = r["function"].toString();
        }
        // The key dir's row reads as its entry too.
        const QJsonObject first = rows.first().toObject();
        const QModelIndex dir = model->indexForPath(root + "/" + first["path"].toString()).parent();
        QVERIFY(dir.isValid());
        QVERIFY(!dir.data().toString().contains(first["key"].toString()));
        // Filtering by a function name (in no path or key) keeps exactly the entries named by it.
        const QString word = someFunction;
        QVERIFY(word.size() >= 3);
        model->setFilterText(word, true);
        int shown = 0, named = 0;
        for (const auto& v : rows) {
            const QJsonObject r = v.toObject();
            QVERIFY(!r["path"].toString().contains(word, Qt::CaseInsensitive));
            const bool hasIt = r["label"].toString().contains(word, Qt::CaseInsensitive);
            named += hasIt;
            if (hasIt) shown += model->indexForPath(root + "/" + r["path"].toString()).isValid();
        }
        QVERIFY(named > 0);
        QCOMPARE(shown, named);
        model->setFilterText(QString(), true);
    }

    // Compile times: the bars are graph entries, slowest first; Enter on one (QTreeView's
    // activation, as a double click) selects that entry in the cache browser and shows it.
    void compileTimesBarSelectsTheEntry() {
        Window win;
        win.w.show();
        win.w.openRoot(test::h100Root());
        TimingsCompilePanel* panel = win.views.compileTimes;
        QVERIFY(panel);
        QVERIFY(test::waitFor([&] { return !panel->isLoading() && panel->entries()->model()->rowCount() > 0; }));
        QVERIFY(test::waitFor([&] { return win.w.browser()->tree() != nullptr; }));
        QVERIFY(win.w.showView(QStringLiteral("Compile times")));
        QTreeView* bars = panel->entries();
        auto* model = bars->model();
        constexpr int kSecondsRole = Qt::UserRole + 1;  // the bar's seconds (the panel's sort role)
        // Slowest first, and each bar is an entry file of the cache.
        for (int r = 1; r < model->rowCount(); ++r)
            QVERIFY(model->index(r - 1, 1).data(kSecondsRole).toDouble() >=
                    model->index(r, 1).data(kSecondsRole).toDouble());
        for (int row : {model->rowCount() - 1, 0}) {
            const QString path = model->index(row, 0).data(TimingsCompilePanel::PathRole).toString();
            QVERIFY2(QFileInfo(path).isFile() && path.startsWith(test::h100Root()), qPrintable(path));
            QVERIFY(win.w.showView(QStringLiteral("Compile times")));
            bars->setFocus();
            bars->setCurrentIndex(model->index(row, 0));
            QTest::keyClick(bars, Qt::Key_Return);
            QCOMPARE(win.w.browser()->currentPath(), path);
            QCOMPARE(win.w.workspace()->tabText(win.w.workspace()->currentIndex()), QStringLiteral("Cache"));
        }
    }

    void noCacheSaysWhereKilnLookedAndHowToOpenOne() {
        MainWindow w;
        w.overviewPanel()->showNoCache(QStringLiteral("No Inductor cache at /tmp/torchinductor_nobody"));
        const QString text = w.overviewPanel()->view()->toPlainText();
        QVERIFY(text.contains("/tmp/torchinductor_nobody"));
        QVERIFY(text.contains("TORCHINDUCTOR_CACHE_DIR"));
        QVERIFY(w.overviewPanel()->view()->toHtml().contains("kiln-action:open"));
    }

    void timelineCountsAreTheTracesCacheEvents() {
        TimelinePanel panel(nullptr);
        const QString trace = test::fixtureDir() + QStringLiteral("/h100/trace");
        panel.loadDirs({trace + "/cold", trace + "/warm", trace + "/changed"});
        QVERIFY(test::waitFor([&] { return !panel.isLoading() && panel.timeline(); }));
        QCOMPARE(panel.processCount(), 3);
        // Side by side in the order they ran: cold, warm, changed.
        const QStringList runs = {"cold", "warm", "changed"};
        for (int i = 0; i < 3; ++i) {
            QTreeWidget* tree = panel.processTree(i);
            QVERIFY(tree);
            const QString dir = trace + "/" + runs[i];
            QVERIFY(QString::fromStdString(panel.timeline()->processes[i].label).endsWith(runs[i]));
            for (const char* state : {"hit", "miss", "bypass"}) {
                const int fx = logEvents(dir, QStringLiteral("fx_graph_cache_") + state);
                const int aot = logEvents(dir, QStringLiteral("aotautograd_cache_") + state);
                QCOMPARE(shownEvents(tree, "fx_graph", state), fx);
                QCOMPARE(shownEvents(tree, "aotautograd", state), aot);
            }
        }
        // The cold run compiles everything, the warm one hits: 12 misses, then 6 hits.
        QCOMPARE(shownEvents(panel.processTree(0), "fx_graph", "miss"), 12);
        QCOMPARE(shownEvents(panel.processTree(1), "fx_graph", "hit"), 6);

        // Activating a hit asks for its entry.
        QString asked;
        connect(&panel, &TimelinePanel::keyActivated, this, [&](const QString& k) { asked = k; });
        QTreeWidgetItem* firstEvent = panel.processTree(1)->topLevelItem(0)->child(0);
        emit panel.processTree(1)->itemActivated(firstEvent, 0);
        QCOMPARE(asked, firstEvent->data(0, TimelinePanel::KeyRole).toString());
        QVERIFY(asked.startsWith('f') || asked.startsWith('a'));
    }

    // What a new user hit: "Open TORCH_TRACE folder…" replaced the runs shown instead of adding one, and
    // the headers named no device. A folder adds a column; each header names the GPU its keys name.
    void openFolderAddsARunAndHeadersNameTheDevice() {
        TimelinePanel panel(nullptr);
        const QString fixtures = test::fixtureDir() + QStringLiteral("/h100h200");
        panel.loadDirs({fixtures + "/h100/trace/cold"});
        QVERIFY(test::waitFor([&] { return !panel.isLoading() && panel.timeline(); }));
        QCOMPARE(panel.processCount(), 1);
        panel.addDir(fixtures + "/h200/trace/warm");
        QVERIFY(test::waitFor([&] { return !panel.isLoading() && panel.processCount() == 2; }));
        QCOMPARE(panel.dirs().size(), 2);
        panel.addDir(fixtures + "/h200/trace/warm/");  // the same folder again: nothing new
        QVERIFY(test::waitFor([&] { return !panel.isLoading(); }));
        QCOMPARE(panel.processCount(), 2);
        QStringList headers;
        for (auto* l : panel.findChildren<QLabel*>()) headers << l->text();
        const QString all = headers.join('\n');
        QVERIFY2(all.contains("<b>h100/cold</b>") && all.contains("<b>h200/warm</b>"), qPrintable(all));
        QVERIFY2(all.contains("NVIDIA H100 80GB HBM3") && all.contains("NVIDIA H200"), qPrintable(all));
    }

    void compareDevicesOnTheH100H200Fixture() {
        AutotuneComparePanel panel(nullptr);
        panel.loadRoot(test::fixtureDir() + QStringLiteral("/h100h200/inductor"));
        QVERIFY(test::waitFor([&] { return !panel.isLoading(); }));
        QCOMPARE(panel.deviceCount(), 2);
        const auto& cmp = panel.model()->comparison();
        QStringList devices;
        for (const auto& d : cmp.devices) devices << QString::fromStdString(d);
        QVERIFY2(devices.join(',').contains("H100") && devices.join(',').contains("H200"),
                 qPrintable(devices.join(',')));
        QVERIFY(panel.model()->rowCount() >= 1);

        AutotuneComparePanel empty(nullptr);
        empty.clearSources();
        auto* add = empty.findChild<QPushButton*>("addSecondSource");
        QVERIFY(add);
        QVERIFY(add->isVisibleTo(&empty));
    }

    // Issue 33: the Autotune view, Compare devices and the Overview's autotuned ops show one read of the
    // root's timings: the root is read once per open and one set is kept (the views hold the same
    // pointer; Compare views its ops), and what each shows is what it showed reading on its own.
    void viewsShareOneTimingRead() {
        const QString root = test::fixtureDir() + QStringLiteral("/h100h200/inductor");  // two devices
        Window win;
        QSignalSpy computed(win.w.overviewPanel(), &OverviewPanel::computed);
        win.w.openRoot(root);
        RootTimings* shared = win.w.rootTimings();
        auto settled = [&] {
            return computed.count() > 0 && !win.views.timings->isLoading() && !win.views.compare->isLoading() &&
                   shared->result() != nullptr;
        };
        QVERIFY(test::waitFor(settled));
        QCOMPARE(shared->readsStarted(), 1);
        const auto set = shared->result()->set;
        QVERIFY(set && !set->ops.empty());
        QCOMPARE(win.views.timings->model()->timings(), set);
        QCOMPARE(win.views.compare->deviceCount(), 2);
        QCOMPARE(win.views.compare->deviceSet(0), set);
        QCOMPARE(win.views.compare->deviceSet(1), set);
        for (const auto& op : win.w.overviewPanel()->overview()->ops) {
            QVERIFY(op.op_index < set->ops.size());
            QCOMPARE(op.winner, set->ops[op.op_index].best);
        }

        // The same content as each view reading the root itself.
        AutotuneComparePanel alone(nullptr);
        alone.loadRoot(root);
        QVERIFY(test::waitFor([&] { return !alone.isLoading(); }));
        const auto& a = alone.model()->comparison();
        const auto& b = win.views.compare->model()->comparison();
        QCOMPARE(b.devices, a.devices);
        QCOMPARE(b.ops.size(), a.ops.size());
        QVERIFY(!b.ops.empty());
        for (std::size_t i = 0; i < a.ops.size(); ++i) {
            QCOMPARE(b.ops[i].best, a.ops[i].best);
            QCOMPARE(b.ops[i].best_ms, a.ops[i].best_ms);
            QCOMPARE(b.ops[i].choices.size(), a.ops[i].choices.size());
        }
        TimingsPanel own(nullptr);
        QSignalSpy ownLoaded(&own, &TimingsPanel::loaded);
        own.load({root});
        QVERIFY(test::waitFor([&] { return ownLoaded.count() > 0; }));
        QCOMPARE(own.model()->timings()->ops.size(), set->ops.size());
        QCOMPARE(own.opList()->count(), win.views.timings->opList()->count());
        for (int i = 0; i < own.opList()->count(); ++i)
            QCOMPARE(win.views.timings->opList()->item(i)->text(), own.opList()->item(i)->text());

        // Another asker (the Overview after a new scan) gets the set again; the views that show it
        // already keep it: no list refilled, no model reset (at a million files, a UI-thread stall).
        const QListWidgetItem* first = win.views.timings->opList()->item(0);
        QSignalSpy tableReset(win.views.timings->model(), &QAbstractItemModel::modelReset);
        QSignalSpy compareReset(win.views.compare->model(), &QAbstractItemModel::modelReset);
        QSignalSpy again(shared, &RootTimings::loaded);
        shared->request();
        QVERIFY(test::waitFor([&] { return again.count() > 0; }));
        QCoreApplication::processEvents();
        QCOMPARE(win.views.timings->opList()->item(0), first);
        QCOMPARE(tableReset.count(), 0);
        QCOMPARE(compareReset.count(), 0);
        QCOMPARE(win.views.compare->deviceCount(), 2);

        // A tuning session's end reads the root again: every view takes the new set, Compare
        // replaces the root's devices instead of adding them twice.
        QSignalSpy reloaded(shared, &RootTimings::loaded);
        shared->reload();
        QVERIFY(test::waitFor([&] { return reloaded.count() > 0 && !win.views.compare->isLoading(); }));
        QCoreApplication::processEvents();
        QCOMPARE(shared->readsStarted(), 2);
        QVERIFY(shared->result()->set != set);
        QCOMPARE(win.views.timings->model()->timings(), shared->result()->set);
        QCOMPARE(win.views.compare->deviceCount(), 2);
        QCOMPARE(win.views.compare->deviceSet(0), shared->result()->set);
    }

    void darkModeLinksAreLegible() {
        for (Theme t : {Theme::dark, Theme::light}) {
            applyTheme(t);
            const QPalette p = QApplication::palette();
            for (auto bg : {QPalette::Base, QPalette::Window}) {
                const double c = contrast(p.color(QPalette::Link), p.color(bg));
                QVERIFY2(c >= 4.5, qPrintable(QString("theme %1: link/background contrast %2").arg(int(t)).arg(c)));
                QVERIFY(contrast(p.color(QPalette::Text), p.color(bg)) >= 4.5);
            }
            QVERIFY(contrast(p.color(QPalette::PlaceholderText), p.color(QPalette::Base)) >= 4.5 || t == Theme::light);
        }
        applyTheme(Theme::system);
    }

    // Charts, diff lines, syntax and error text read on the palette they are drawn on, and a chart
    // open when the theme changes follows it (checked on the rendered chart's background).
    void darkModeChartsAndDiffAreLegible() {
        applyTheme(Theme::light);
        ChoiceBarChart chart;  // made under the light theme: it must follow the switch
        chart.resize(600, 300);
        kiln::timings::Op op;
        op.op = "mm";
        op.inputs = "64x64 float16";
        for (double ms : {0.5, 0.7}) {
            kiln::timings::Choice c;
            c.name = "triton_mm_" + std::to_string(int(ms * 10));
            c.ms = ms;
            op.choices.push_back(c);
        }
        kiln::timings::pick_best(op);
        chart.setOp(op);
        for (Theme t : {Theme::dark, Theme::light}) {
            applyTheme(t);
            QCoreApplication::processEvents();
            const QPalette p = QApplication::palette();
            const bool dark = t == Theme::dark;
            auto* plot = chart.plot();
            const QColor bg = plot->toPixmap(600, 300).toImage().pixelColor(2, 2);
            QCOMPARE(isDarkPalette(QPalette(bg)), dark);
            const auto why = [&](const char* what, double c) {
                return QString("theme %1: %2 contrast %3").arg(dark ? "dark" : "light", what).arg(c);
            };
            for (auto* axis : {plot->xAxis, plot->yAxis}) {
                const double tick = contrast(axis->tickLabelColor(), bg), label = contrast(axis->labelColor(), bg);
                QVERIFY2(tick >= 4.5, qPrintable(why("tick label", tick)));
                QVERIFY2(label >= 4.5, qPrintable(why("axis label", label)));
            }
            auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->element(0, 0));
            QVERIFY(title);
            QVERIFY2(contrast(title->textColor(), bg) >= 4.5,
                     qPrintable(why("title", contrast(title->textColor(), bg))));
            // Bars are not text: WCAG's 3:1 for graphics.
            for (int i = 0; i < plot->plottableCount(); ++i) {
                const double c = contrast(plot->plottable(i)->brush().color(), bg);
                QVERIFY2(c >= 3, qPrintable(why("bar", c)));
            }
            // Diff lines: the text colour on each kind of line's background.
            DiffLinesModel diff;
            diff.setDark(isDarkPalette(p));
            QVector<SideBySideLine> lines(3);
            lines[0].kind = SideBySideLine::Kind::removed;
            lines[1].kind = SideBySideLine::Kind::added;
            lines[2].kind = SideBySideLine::Kind::changed;
            diff.setLines(lines);
            for (int r = 0; r < diff.rowCount(); ++r) {
                for (int col : {DiffLinesModel::TextAColumn, DiffLinesModel::TextBColumn}) {
                    const QVariant back = diff.index(r, col).data(Qt::BackgroundRole);
                    if (!back.isValid()) continue;
                    const double c = contrast(p.color(QPalette::Text), back.value<QColor>());
                    QVERIFY2(c >= 4.5, qPrintable(why("diff line", c)));
                }
            }
            const ThemeColors& colors = themeColors(p);
            for (auto role : {QPalette::Base, QPalette::Window}) {
                for (const QColor& status : {colors.error, colors.ok, colors.warning}) {
                    const double c = contrast(status, p.color(role));
                    QVERIFY2(c >= 4.5, qPrintable(why("error/ok/warning text", c)));
                }
            }
            for (const QColor& syntax : {colors.keyword, colors.type, colors.number, colors.call, colors.decorator,
                                         colors.string, colors.comment}) {
                const double c = contrast(syntax, p.color(QPalette::Base));
                QVERIFY2(c >= 4.5, qPrintable(why("syntax", c)));
            }
        }
        applyTheme(Theme::system);
    }

    void menusInOrderAndRedisHiddenUntilConfigured() {
        Window win;
        QStringList titles;
        for (QAction* a : win.w.menuBar()->actions()) titles << a->text().remove('&');
        QCOMPARE(titles, QStringList({"File", "Edit", "View", "Tune", "Help"}));
        for (auto* dock : win.w.findChildren<QDockWidget*>())
            QVERIFY2(dock->isHidden(), qPrintable(dock->windowTitle() + " shown with no Redis configured"));
    }

    void keyboardReachesEveryView() {
        Window win;
        win.w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&win.w));
        win.w.openRoot(test::h100Root());
        QVERIFY(test::waitFor([&] { return win.w.browser()->tree() && !win.w.jobs()->isBusy(); }));
        QTabWidget* tabs = win.w.workspace();
        tabs->setCurrentIndex(0);
        for (int i = 0; i < tabs->count(); ++i) {
            // Ctrl+PgDown walks the views; Tab then moves focus into the view's widgets.
            if (i > 0)
                QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : &win.w, Qt::Key_PageDown,
                                Qt::ControlModifier);
            QCOMPARE(tabs->currentIndex(), i);
            tabs->tabBar()->setFocus();
            bool entered = false;
            for (int k = 0; k < 40 && !entered; ++k) {
                QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
                QWidget* f = QApplication::focusWidget();
                entered = f && tabs->currentWidget()->isAncestorOf(f);
            }
            QVERIFY2(entered, qPrintable("Tab never reaches the " + tabs->tabText(i) + " view"));
        }
    }

    void windowFitsTheScreenThenRestores() {
        QSettings().clear();
        QRect first;
        {
            Window win;
            win.w.restoreWindow();
            const QRect avail = win.w.screen()->availableGeometry();
            QVERIFY2(win.w.width() >= avail.width() * 3 / 4 && win.w.width() <= avail.width(),
                     qPrintable(QString("%1 of %2").arg(win.w.width()).arg(avail.width())));
            win.w.resize(900, 600);
            win.w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&win.w));
            first = win.w.geometry();
            win.w.close();  // saves geometry and state
        }
        Window again;
        again.w.restoreWindow();
        QCOMPARE(again.w.size(), first.size());
    }
};

QTEST_MAIN(OverviewTest)
#include "overview_test.moc"
