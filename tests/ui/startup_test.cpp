// "Where the compile time went" offscreen on the fixtures: the table model under
// QAbstractItemModelTester, the phase bars against the report (each bar is its compile's seconds,
// hover and click find the segment), the view's headline and fix panel, the Compile timeline tab
// reading it beside the root, and the Overview's first screen naming the biggest avoidable cost.
#include <qcustomplot.h>
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QTextBrowser>

#include "startup/startup_report.hpp"
#include "ui/overview/overview_html.hpp"
#include "ui/timeline/phase_bar_chart.hpp"
#include "ui/timeline/startup_model.hpp"
#include "ui/timeline/startup_view.hpp"
#include "ui/timeline/timeline_panel.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;
namespace ks = kiln::startup;

class StartupTest : public QObject {
    Q_OBJECT
private:
    // The H100 fixture's three processes (cold, warm, changed), as `kiln-cli startup` reads them.
    static std::shared_ptr<const ks::StartupReport> h100() {
        auto r = ks::analyze_startup({(test::fixtureDir() + QStringLiteral("/h100/trace")).toStdString()}, {});
        if (!r) qFatal("the fixture's traces did not read");
        return std::make_shared<ks::StartupReport>(std::move(r).value());
    }
    static int processNamed(const ks::StartupReport& r, const std::string& label) {
        for (int i = 0; i < int(r.processes.size()); ++i)
            if (r.processes[static_cast<std::size_t>(i)].label == label) return i;
        return -1;
    }
    static int compileNamed(const ks::ProcessStartup& p, const std::string& function) {
        for (int i = 0; i < int(p.compiles.size()); ++i)
            if (p.compiles[static_cast<std::size_t>(i)].function == function) return i;
        return -1;
    }

private slots:
    void modelPassesTester() {
        auto report = h100();
        StartupModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (int p = 0; p < int(report->processes.size()); ++p) {
            model.setProcess(report, p);
            const auto& proc = report->processes[static_cast<std::size_t>(p)];
            QCOMPARE(model.rowCount(), int(proc.compiles.size()));
            for (int c = 0; c < model.rowCount(); ++c) {
                const QModelIndex ci = model.index(c, 0);
                const auto& compile = proc.compiles[static_cast<std::size_t>(c)];
                QCOMPARE(model.rowCount(ci), int(compile.phases.size()) + 1);  // + unexplained
                double sum = 0;
                for (int r = 0; r < model.rowCount(ci); ++r)
                    sum += model.index(r, 0, ci).data(StartupModel::SecondsRole).toDouble();
                QVERIFY(std::abs(sum - compile.seconds) < 1e-9);
                QCOMPARE(ci.data(StartupModel::SecondsRole).toDouble(), compile.seconds);
                QCOMPARE(model.parent(model.index(0, 2, ci)), ci);
            }
        }
        model.setProcess(nullptr, -1);
        QCOMPARE(model.rowCount(), 0);
    }

    void barsAreTheCompilesPhases() {
        auto report = h100();
        const int warm = processNamed(*report, "warm");
        QVERIFY(warm >= 0);
        const auto& p = report->processes[static_cast<std::size_t>(warm)];
        PhaseBarChart chart;
        chart.resize(1000, 500);
        chart.setProcess(&p);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.plot()->replot();
        QCOMPARE(chart.rows().size(), p.compiles.size());
        for (std::size_t i = 0; i < p.compiles.size(); ++i) {
            double sum = 0;
            for (const auto& s : chart.rows()[i].segments) sum += s.seconds;
            const auto& c = p.compiles[i];  // the phases, then the unexplained rest (never below zero)
            QVERIFY(std::abs(sum - (c.seconds - c.unexplained_seconds + std::max(0.0, c.unexplained_seconds))) < 1e-9);
        }
        // Hovering the middle of c's biggest segment finds it: 33 s loading the compiled module.
        const int c = compileNamed(p, "c");
        QVERIFY(c >= 0);
        const PhaseSegment* big = nullptr;
        for (const auto& s : chart.rows()[static_cast<std::size_t>(c)].segments)
            if (!big || s.seconds > big->seconds) big = &s;
        QCOMPARE(big->phase, QStringLiteral("loading the compiled module"));
        const QPointF at(chart.plot()->xAxis->coordToPixel(big->start + big->seconds / 2),
                         chart.plot()->yAxis->coordToPixel(c));
        auto [row, seg] = chart.segmentAt(at);
        QCOMPARE(row, c);
        QVERIFY(seg);
        QCOMPARE(seg->phase, big->phase);
        const QString tip = PhaseBarChart::segmentText(chart.rows()[static_cast<std::size_t>(c)], *seg);
        QVERIFY2(tip.contains(QStringLiteral("vector-ISA probe")), qPrintable(tip));
        QSignalSpy clicked(&chart, &PhaseBarChart::segmentClicked);
        QTest::mouseClick(chart.plot(), Qt::LeftButton, {}, at.toPoint());
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.first().at(1).toString(), big->phase);
    }

    void viewNamesTheAnswerAndTheFix() {
        auto report = h100();
        StartupView view;
        view.resize(1400, 900);
        view.setReport(report);
        // The process with the most avoidable seconds comes first: the cold run (nothing was cached).
        QCOMPARE(view.currentProcess(), StartupView::biggestAvoidable(*report));
        const int warm = processNamed(*report, "warm");
        view.selectProcess(warm);
        QCOMPARE(view.processes()->currentIndex(), warm);
        // The CPU graph's seconds no span covers are inferred, in the core's words (issue 41). Its one
        // compile_file is torch preprocessing its C++ prefix header, which every process does (an A/B with
        // every library kept, bench/RESULTS.md): no longer blamed on missing libraries.
        QVERIFY2(view.headline()->text().contains(QStringLiteral("inferred: no span covers these seconds")),
                 qPrintable(view.headline()->text()));
        QVERIFY(!view.headline()->text().contains(QStringLiteral("would go with TORCHINDUCTOR_VEC_ISA_OK=1")));
        QVERIFY2(!view.headline()->text().contains(QStringLiteral("C++ libraries kept")),
                 qPrintable(view.headline()->text()));
        QVERIFY2(view.sidePanel()->toPlainText().contains(QStringLiteral("inferred: no span covers these seconds")),
                 qPrintable(view.sidePanel()->toPlainText()));
        const auto& p = report->processes[static_cast<std::size_t>(warm)];
        view.showPhase(compileNamed(p, "c"), QStringLiteral("loading the compiled module"));
        QVERIFY2(view.sidePanel()->toPlainText().contains(QStringLiteral("TORCHINDUCTOR_VEC_ISA_OK=1")),
                 qPrintable(view.sidePanel()->toPlainText()));
        view.setReport(nullptr, QStringLiteral("nothing here"));
        QCOMPARE(view.headline()->text(), QStringLiteral("nothing here"));
        QCOMPARE(view.model()->rowCount(), 0);
    }

    void timelineTabExplainsTheLogsBesideTheRoot() {
        TimelinePanel panel(nullptr);
        panel.loadRoot(test::h100Root());
        QVERIFY(test::waitFor([&] { return !panel.isLoading() && panel.startupView()->report(); }));
        QCOMPARE(panel.startupView()->report()->processes.size(), std::size_t(3));
        QVERIFY(panel.startupView()->chart()->rows().size() > 0);
    }

    void overviewNamesTheBiggestAvoidableCost() {
        kiln::overview::Overview o;
        o.root = test::h100h200Dir().toStdString() + "/inductor";
        o.trace_dirs = {(test::h100h200Dir() + QStringLiteral("/h100/trace")).toStdString(),
                        (test::h100h200Dir() + QStringLiteral("/h200/trace")).toStdString()};
        o.startup = kiln::overview::startup_section(o.trace_dirs);
        QVERIFY(o.startup.computed);
        QVERIFY(o.startup.seconds > 1);
        const QString html = overviewHtml(o, QPalette(), {});
        QVERIFY2(html.contains(QStringLiteral("Biggest avoidable cost")), qPrintable(html));
        // On the first screen: before the graph entries.
        QVERIFY(html.indexOf(QStringLiteral("Biggest avoidable cost")) < html.indexOf(QStringLiteral("Graph entries")));
    }
};

QTEST_MAIN(StartupTest)
#include "startup_test.moc"
