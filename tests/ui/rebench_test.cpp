// Re-benchmark plumbing: parsing kiln-cli rebench's JSON, the stored kernel times of the fixture,
// and a real run of kiln-cli rebench whose failure reason (no GPU/torch here) reaches the dialog.
#include <QSignalSpy>
#include <QTest>
#include <qcustomplot.h>

#include "rebench_controller.hpp"
#include "rebench_dialog.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;

class RebenchTest : public QObject {
    Q_OBJECT
private slots:
    void parsesGraphThenKernels() {
        QVector<RebenchDevice> r;
        // The shape cmd_rebench.cpp prints: graph run, then -k run.
        QCOMPARE(parseRebenchJson(R"({"module": "/m.py", "devices": [
            {"device": "cuda:0", "status": "ok", "ms": 0.5, "timings": {"graph_ms": 0.5}},
            {"device": "cuda:1", "status": "crash", "reason": "signal 11"}]})", r), QString());
        QCOMPARE(parseRebenchJson(R"({"devices": [{"device": "cuda:0", "status": "ok", "ms": 0.3,
            "timings": {"kernels": [{"name": "triton_poi_fused_0", "ms": 0.1, "gb_per_s": 100},
                                    {"name": "triton_red_fused_1", "ms": 0.2, "gb_per_s": 50}]}}]})", r), QString());
        QCOMPARE(r.size(), 2);
        QCOMPARE(r[0].graphMs, 0.5);
        QCOMPARE(r[0].kernelMs.size(), 2);
        QCOMPARE(r[0].kernelMs.value(QStringLiteral("triton_red_fused_1")), 0.2);
        QCOMPARE(r[1].status, QStringLiteral("crash"));
        QCOMPARE(r[1].reason, QStringLiteral("signal 11"));
        QVERIFY(!parseRebenchJson("not json", r).isEmpty());
    }

    void storedTimesFromFixture() {
        const auto stored = storedKernelTimes(test::h100Root());
        QCOMPARE(stored.size(), 3);  // the fixture's three .kernel_perf files (all named `triton_`: kept apart)
        for (double ms : stored) QVERIFY(ms != 0);
    }

    void realRunReportsWhyItFailed() {
        // This machine may lack a GPU or a Python with torch; either way the reason must surface.
        RebenchController ctl;
        QSignalSpy done(&ctl, &RebenchController::finished);
        const QString module = test::h100Root() + QStringLiteral("/am/camiztff5waav63ofwpyvoby6lsvzpn6inr3svorejdjq5pxctqf.py");
        QCOMPARE(ctl.start(module, QString()), QString());
        QVERIFY(test::waitFor([&] { return done.count() > 0; }, 200000));
        if (done.at(0).at(0).toBool()) {
            QVERIFY(!ctl.results().isEmpty());  // a machine with torch and a GPU: real timings
            QVERIFY(ctl.results()[0].graphMs > 0);
        } else {
            QVERIFY2(!done.at(0).at(1).toString().isEmpty(), "no reason given");
        }
        RebenchDialog dlg(module, test::h100Root());
        dlg.showResults();
        QVERIFY(dlg.plot()->plottableCount() >= 1);
        QVERIFY(ctl.start(QStringLiteral("/no/such.py"), QString()).contains(QStringLiteral("no such module")));
    }
};

QTEST_MAIN(RebenchTest)
#include "rebench_test.moc"
