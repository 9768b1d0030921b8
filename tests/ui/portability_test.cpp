// The Portability view against `kiln-cli portable ROOT --target T --json` run as a real process,
// offscreen on the h100h200 fixture (an H100 cache later used on an H200): counts and the verdict of
// every entry, the selected entry's differing components, the browser's verdict colours and the
// click that selects an entry there; a root judged against itself; a Mega-Cache megacache_blob as the cache.
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>

#include "ui/browser/cache_browser.hpp"
#include "ui/browser/cache_tree_model.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/portability/difference_model.hpp"
#include "ui/portability/portability_chart.hpp"
#include "ui/portability/portability_install.hpp"
#include "ui/portability/portability_panel.hpp"
#include "ui/portability/verdict_model.hpp"
#include "ui/portability/verdict_style.hpp"
#include "ui/shell/main_window.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;
using kiln::portability::Verdict;

namespace {

QString h200Trace() { return test::h100h200Dir() + "/h200/trace/warm"; }
QString mixedRoot() { return test::h100h200Dir() + "/inductor"; }
QString megacache_blob() { return test::h100h200Dir() + "/h200/megacache.bin"; }

bool wait_idle(MainWindow& w) { return w.browser()->tree() && !w.jobs()->isBusy(); }

// Opens `root` in a window, checks it against `target` in the view; returns the panel.
PortabilityPanel* checkInWindow(MainWindow& w, const QString& root, const QString& target) {
    PortabilityPanel* panel = installPortabilityView(w);
    w.show();
    w.openRoot(root);
    if (!test::waitFor([&] { return wait_idle(w); })) return nullptr;
    panel->setTarget({false, target});
    bool done = false;
    QObject::connect(panel, &PortabilityPanel::checked, panel, [&] { done = true; });
    panel->check();
    if (!test::waitFor([&] { return done; }, 120000)) return nullptr;
    return panel;
}

QJsonObject cliReport(const QString& root, const QString& target, int* exitCode) {
    return QJsonDocument::fromJson(test::runCliStatus({"portable", root, "--target", target, "--json"}, exitCode))
        .object();
}

// Every row of the view and every count equal the CLI's JSON; returns the number of graph entries.
int compareWithCli(PortabilityPanel* panel, const QJsonObject& cli) {
    VerdictModel* m = panel->verdicts();
    const QJsonArray entries = cli["entries"].toArray();
    [&] { QCOMPARE(m->rowCount(), entries.size()); }();
    QHash<QString, QString> cliVerdict;
    for (const auto& e : entries)
        cliVerdict.insert(e.toObject()["path"].toString(), e.toObject()["verdict"].toString());
    QHash<QString, QHash<QString, int>> counts;  // kind -> verdict -> n
    for (int r = 0; r < m->rowCount(); ++r) {
        const QString path = m->index(r, VerdictModel::PathColumn).data().toString();
        const QString verdict = m->index(r, VerdictModel::VerdictColumn).data().toString();
        [&] { QVERIFY2(cliVerdict.contains(path), qPrintable(path)); }();
        [&] { QCOMPARE(verdict, cliVerdict.value(path)); }();
        ++counts[m->index(r, VerdictModel::KindColumn).data().toString()][verdict];
    }
    const QJsonObject cliCounts = cli["summary"].toObject()["counts"].toObject();
    for (auto it = cliCounts.begin(); it != cliCounts.end(); ++it)
        for (const char* v : {"hit", "miss", "unknown"})
            [&] { QCOMPARE(counts[it.key()].value(v), it.value().toObject()[v].toInt()); }();
    // The chart shows the same counts (graph kinds first, in the report's order).
    const PortabilityBars& bars = panel->chart()->bars();
    const QJsonObject fx = cliCounts["fxgraph"].toObject();
    if (fx["total"].toInt() > 0 && !bars.kinds.empty()) {
        [&] { QCOMPARE(bars.kinds[0].hit, fx["hit"].toInt()); }();
        [&] { QCOMPARE(bars.kinds[0].miss, fx["miss"].toInt()); }();
    }
    return fx["total"].toInt() + cliCounts["aotautograd"].toObject()["total"].toInt();
}

}  // namespace

class PortabilityTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName("KilnTest");
        QVERIFY2(QDir(mixedRoot()).exists(), "KILN_FIXTURE_DIR must point at the extracted fixtures");
        QVERIFY(QDir(h200Trace()).exists());
    }

    void againstTheH200TraceTheViewSaysWhatTheCliSays() {
        MainWindow w;
        PortabilityPanel* panel = checkInWindow(w, mixedRoot(), h200Trace());
        QVERIFY(panel);
        QVERIFY2(panel->outcome().report, qPrintable(panel->outcome().error));
        int rc = -1;
        const QJsonObject cli = cliReport(mixedRoot(), h200Trace(), &rc);
        QCOMPARE(rc, 1);  // some graph entries miss
        QVERIFY(compareWithCli(panel, cli) > 0);
        if (QTest::currentTestFailed()) return;
        // The summary sentence first, as the CLI prints it.
        const QString first = cli["summary"].toObject()["text"].toArray()[0].toString();
        QVERIFY(first.contains("partly"));
        QVERIFY2(panel->summaryText().contains(first.toHtmlEscaped()), qPrintable(panel->summaryText()));
        // The chart's components: the two system_info components, in every missing graph entry.
        const QJsonArray differing = cli["summary"].toObject()["differing"].toArray();
        QCOMPARE(int(panel->chart()->bars().components.size()), differing.size());
        QCOMPARE(panel->chart()->bars().components[0].component, differing[0].toObject()["component"].toString());
        QCOMPARE(panel->chart()->bars().components[0].entries, differing[0].toObject()["entries"].toInt());

        // The first miss: its differing components, cached -> target, whole values.
        VerdictModel* m = panel->verdicts();
        int miss = -1;
        for (int r = 0; r < m->rowCount() && miss < 0; ++r)
            if (m->index(r, 0).data(VerdictModel::VerdictRole).toInt() == int(Verdict::miss)) miss = r;
        QVERIFY(miss >= 0);
        QVERIFY(panel->selectRow(miss));
        const QString missPath = m->index(miss, VerdictModel::PathColumn).data().toString();
        QJsonObject cliEntry;
        for (const auto& e : cli["entries"].toArray())
            if (e.toObject()["path"].toString() == missPath) cliEntry = e.toObject();
        const QJsonArray differs = cliEntry["differs"].toArray();
        QVERIFY(differs.size() >= 2);
        const auto& rows = panel->differences()->rows();
        QVERIFY(int(rows.size()) >= differs.size());
        for (int i = 0; i < differs.size(); ++i) {
            QCOMPARE(rows[std::size_t(i)].component, differs[i].toObject()["component"].toString());
            QCOMPARE(rows[std::size_t(i)].cached, differs[i].toObject()["cached"].toString());
            QCOMPARE(rows[std::size_t(i)].target, differs[i].toObject()["target"].toString());
            QCOMPARE(panel->differences()->index(i, DifferenceModel::TargetColumn).data(Qt::ToolTipRole).toString(),
                     differs[i].toObject()["target"].toString());
        }

        // The browser: the entry carries the miss colour and says so in its tooltip.
        const QString abs = m->index(miss, 0).data(VerdictModel::AbsolutePathRole).toString();
        const QModelIndex inTree = w.browser()->model()->indexForPath(abs);
        QVERIFY2(inTree.isValid(), qPrintable(abs));
        QCOMPARE(inTree.data(Qt::DecorationRole).value<QColor>(),
                 verdictColor(Verdict::miss, QGuiApplication::palette()));
        QVERIFY(inTree.data(Qt::ToolTipRole).toString().contains("miss"));
        QVERIFY(inTree.data(Qt::ToolTipRole).toString().contains("NVIDIA H200"));

        // A click on the row selects the entry in the browser.
        w.workspace()->setCurrentWidget(panel);
        QTableView* view = panel->verdictView();
        const QModelIndex cell = m->index(miss, VerdictModel::PathColumn);
        view->scrollTo(cell);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(cell).center());
        QVERIFY(test::waitFor([&] { return w.browser()->currentPath() == abs; }, 5000));
        test::saveScreenshot(&w, "portability.png");
    }

    void aRootAgainstItselfHitsEverywhere() {
        // One machine's cache: every graph entry would hit where it was written.
        MainWindow w;
        PortabilityPanel* panel = checkInWindow(w, test::h100Root(), test::h100Root());
        QVERIFY(panel && panel->outcome().report);
        int rc = -1;
        const QJsonObject cli = cliReport(test::h100Root(), test::h100Root(), &rc);
        QCOMPARE(rc, 0);
        const int graphs = compareWithCli(panel, cli);
        QCOMPARE(graphs, 25);
        VerdictModel* m = panel->verdicts();
        int graphHits = 0;
        for (int r = 0; r < m->rowCount(); ++r) {
            const QString kind = m->index(r, VerdictModel::KindColumn).data().toString();
            if (kind != "fxgraph" && kind != "aotautograd") continue;
            QCOMPARE(m->index(r, 0).data(VerdictModel::VerdictRole).toInt(), int(Verdict::hit));
            ++graphHits;
        }
        QCOMPARE(graphHits, 25);
        QVERIFY(panel->summaryText().contains("yes: all 25 graph entries would hit"));
    }

    void theMixedRootAgainstItselfIsTheCliAnswerToo() {
        // The h100h200 root holds both machines' entries; its fingerprint is its newest entry's
        // environment (the H200's), so the H100 entries miss there: the view must say the same.
        MainWindow w;
        PortabilityPanel* panel = checkInWindow(w, mixedRoot(), mixedRoot());
        QVERIFY(panel && panel->outcome().report);
        int rc = -1;
        compareWithCli(panel, cliReport(mixedRoot(), mixedRoot(), &rc));
    }

    void thisMachineIsTheCliLocalTarget() {
        // Whatever this machine is (a GPU or not, torch or not), the view says what `--target local` says.
        MainWindow w;
        PortabilityPanel* panel = installPortabilityView(w);
        w.show();
        w.openRoot(test::h100Root());
        QVERIFY(test::waitFor([&] { return wait_idle(w); }));
        panel->setTarget({true, QString()});
        bool done = false;
        connect(panel, &PortabilityPanel::checked, this, [&] { done = true; });
        panel->check();
        QVERIFY(test::waitFor([&] { return done; }, 300000));
        QVERIFY2(panel->outcome().report, qPrintable(panel->outcome().error));
        int rc = -1;
        compareWithCli(panel, cliReport(test::h100Root(), "local", &rc));
    }

    void verdictColoursFollowTheDarkPalette() {
        MainWindow w;
        PortabilityPanel* panel = checkInWindow(w, mixedRoot(), h200Trace());
        QVERIFY(panel && panel->outcome().report);
        const QString abs = panel->verdicts()->index(0, 0).data(VerdictModel::AbsolutePathRole).toString();
        const auto v = Verdict(panel->verdicts()->index(0, 0).data(VerdictModel::VerdictRole).toInt());
        const QModelIndex inTree = w.browser()->model()->indexForPath(abs);
        QVERIFY(inTree.isValid());
        const QPalette light = QGuiApplication::palette();
        QPalette dark = light;
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Window, QColor(45, 45, 48));
        QGuiApplication::setPalette(dark);
        const QColor onDark = inTree.data(Qt::DecorationRole).value<QColor>();
        QGuiApplication::setPalette(light);
        QCOMPARE(onDark, verdictColor(v, true));
        QVERIFY(onDark.lightness() - 30 > 80);  // stands out on the dark base
        for (Verdict each : {Verdict::hit, Verdict::miss, Verdict::unknown})
            QVERIFY(verdictColor(each, false).lightness() < 200);  // and the light tone on a white base
        QVERIFY(verdictLegendHtml(light).contains(verdictTitle(Verdict::miss).toHtmlEscaped()));
    }

    void aBlobIsJudgedLikeTheCacheItWouldWrite() {
        MainWindow w;
        PortabilityPanel* panel = checkInWindow(w, megacache_blob(), h200Trace());
        QVERIFY(panel);
        QVERIFY2(panel->outcome().report, qPrintable(panel->outcome().error));
        int rc = -1;
        const QJsonObject cli = cliReport(megacache_blob(), h200Trace(), &rc);
        QCOMPARE(compareWithCli(panel, cli), 9);
        QCOMPARE(QString::fromStdString(panel->outcome().report->root), cli["root"].toString());
        QVERIFY(panel->summaryText().contains(megacache_blob()));
        QVERIFY(!panel->summaryText().contains("kiln-megacache_blob-"));  // never the temporary root
    }
};

QTEST_MAIN(PortabilityTest)
#include "portability_test.moc"
