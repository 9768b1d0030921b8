// Re-benchmark plumbing: parsing kiln-cli rebench's JSON, the stored kernel times of the fixture
// (read by a job off the UI thread, then charted), and a real run of kiln-cli rebench whose failure reason (no GPU/torch here) reaches the dialog.
#include <qcustomplot.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QCoreApplication>
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryFile>
#include <QTest>

#include "ui/jobs/job_runner.hpp"
#include "ui/runs/rebench_controller.hpp"
#include "ui/runs/rebench_dialog.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;

namespace {
// loadResultsFile reads on the dialog's job: the error it ends with (empty: loaded).
QString loadAndWait(RebenchDialog& dlg, const QString& path) {
    QSignalSpy done(&dlg, &RebenchDialog::resultsLoaded);
    dlg.loadResultsFile(path);
    // A job that ends before its continuation is attached reports at once, inside loadResultsFile.
    if (done.isEmpty() && !done.wait(30000)) return QStringLiteral("timed out");
    return done.front().front().toString();
}
}  // namespace

class RebenchTest : public QObject {
    Q_OBJECT
private slots:
    void parsesGraphThenKernels() {
        QVector<RebenchTimes> r;
        // The shape cmd_rebench.cpp prints: graph run, then -k run.
        QCOMPARE(parseRebenchJson(R"({"module": "/m.py", "devices": [
            {"device": "cuda:0", "status": "ok", "ms": 0.5, "timings": {"graph_ms": 0.5}},
            {"device": "cuda:1", "status": "crash", "reason": "signal 11"}]})",
                                  r),
                 QString());
        QCOMPARE(parseRebenchJson(R"({"devices": [{"device": "cuda:0", "status": "ok", "ms": 0.3,
            "timings": {"kernels": [{"name": "triton_poi_fused_0", "ms": 0.1, "gb_per_s": 100},
                                    {"name": "triton_red_fused_1", "ms": 0.2, "gb_per_s": 50}]}}]})",
                                  r),
                 QString());
        QCOMPARE(r.size(), 2);
        QCOMPARE(r[0].graphMs, 0.5);
        QCOMPARE(r[0].kernelMs.size(), 2);
        QCOMPARE(r[0].kernelMs.value(QStringLiteral("triton_red_fused_1")), 0.2);
        QCOMPARE(r[1].status, QStringLiteral("crash"));
        QCOMPARE(r[1].reason, QStringLiteral("signal 11"));
        QVERIFY(!parseRebenchJson("not json", r).isEmpty());
    }

    void storedTimesFromFixture() {
        // Read by the dialog's job, off the UI thread; charted beside a result keyed to one of them.
        JobRunner jobs;
        RebenchDialog dlg(QStringLiteral("/m.py"), test::h100Root(), &jobs);
        QVERIFY(test::waitFor([&] { return !dlg.storedTimesPending(); }, 30000));
        QCOMPARE(dlg.storedTimesError(), QString());
        const auto& stored = dlg.storedTimes();
        QCOMPARE(stored.by_name.size(),
                 3u);  // the fixture's three .kernel_perf files (all named `triton_`: kept apart)
        QCOMPARE(stored.by_key.size(), 3u);
        for (const auto& [name, ms] : stored.by_name) QVERIFY(ms != 0);
        QTemporaryFile f;
        QVERIFY(f.open());
        f.write(R"({"devices": [{"device": "cuda:0", "status": "ok", "ms": 0.1, "timings": {"kernels":
                   [{"name": "triton_", "ms": 0.02, "key": "civajokybo"}]}}]})");
        f.flush();
        QCOMPARE(loadAndWait(dlg, f.fileName()), QString());
        auto* storedBars = qobject_cast<QCPBars*>(dlg.plot()->plottable(0));
        QVERIFY(storedBars);
        QCOMPARE(storedBars->data()->size(), 1);
        QCOMPARE(storedBars->data()->at(0)->value, 0.011807999573647976);
    }

    void storedTimesOfAMissingRootSayWhy() {
        JobRunner jobs;
        RebenchDialog dlg(QStringLiteral("/m.py"), QStringLiteral("/no/such/root"), &jobs);
        QVERIFY(test::waitFor([&] { return !dlg.storedTimesPending(); }, 30000));
        QVERIFY(dlg.storedTimesError().contains(QStringLiteral("/no/such/root")));
        QVERIFY(dlg.storedTimes().by_key.empty());
    }

    void closingTheDialogWhileReadingIsSafe() {
        // Dialogs closed at once, their reads still queued or running: nothing reaches a dead dialog.
        JobRunner jobs;
        for (int i = 0; i < 20; ++i) delete new RebenchDialog(QStringLiteral("/m.py"), test::h100Root(), &jobs);
        QVERIFY(test::waitFor([&] { return !jobs.isBusy(); }, 30000));
        RebenchDialog last(QStringLiteral("/m.py"), test::h100Root(), &jobs);
        QVERIFY(test::waitFor([&] { return !last.storedTimesPending(); }, 30000));
        QCOMPARE(last.storedTimesError(), QString());
        QCOMPARE(last.storedTimes().by_key.size(), 3u);
    }

    void chartsRealH200Results() {
        // kiln-cli rebench's own output from an H200 run (tests/ui/data): the graph, then -k.
        const QString data = test::sourceDir() + QStringLiteral("/tests/ui/data/");
        JobRunner jobs;
        RebenchDialog dlg(QStringLiteral("/tmp/kmod/cache/dw/cdwqezbxexiqsckoxc6n5ecelmibyogcx675gok7sjkrbsvaq5wk.py"),
                          test::h100Root(), &jobs);
        QVERIFY(test::waitFor([&] { return !dlg.storedTimesPending(); }, 30000));
        QCOMPARE(loadAndWait(dlg, data + QStringLiteral("rebench_graph_h200.json")), QString());
        QCOMPARE(loadAndWait(dlg, data + QStringLiteral("rebench_kernels_h200.json")), QString());
        const auto& r = dlg.controller()->results();
        QCOMPARE(r.size(), 1);
        QCOMPARE(r[0].device, QStringLiteral("cuda:0"));
        QCOMPARE(r[0].graphMs, 0.142);
        QCOMPARE(r[0].kernelMs.size(), 4);
        QCOMPARE(r[0].kernelKey.value(QStringLiteral("triton_per_fused_cumsum_3")), QStringLiteral("cyoejxaxpd"));
        const QStringList rows = dlg.rows();
        QCOMPARE(rows.size(), 5);  // the graph and four kernels
        QVERIFY(rows.contains(QStringLiteral("triton_red_fused_gelu_sum_1")));
        // Series: stored in cache (none of these kernels is in the fixture) and cuda:0 with 5 bars.
        QCOMPARE(dlg.plot()->plottableCount(), 2);
        auto* bars = qobject_cast<QCPBars*>(dlg.plot()->plottable(1));
        QVERIFY(bars);
        QCOMPARE(bars->name(), QStringLiteral("cuda:0"));
        QCOMPARE(bars->data()->size(), 5);
        QCOMPARE(bars->data()->at(0)->value, 0.142);
        const int cumsum = static_cast<int>(rows.indexOf(QStringLiteral("triton_per_fused_cumsum_3")));
        QCOMPARE(bars->data()->findBegin(cumsum, false)->value, 0.007);
        QCOMPARE(qobject_cast<QCPBars*>(dlg.plot()->plottable(0))->data()->size(), 0);
        dlg.resize(900, 520);
        test::saveScreenshot(&dlg, QStringLiteral("rebench.png"));
    }

    void storedTimesMatchByModuleKey() {
        // A kernel whose -k key is a prefix of a fixture .kernel_perf's module key gets that time.
        RebenchTimes d;
        d.kernelMs.insert(QStringLiteral("triton_"), 0.02);
        d.kernelKey.insert(QStringLiteral("triton_"), QStringLiteral("civajokybo"));
        const auto stored = kiln::timings::read_stored_kernel_times(test::h100Root().toStdString());
        QVERIFY(stored.ok());
        QCOMPARE(storedTimeFor(d, QStringLiteral("triton_"), *stored), 0.011807999573647976);
        d.kernelKey[QStringLiteral("triton_")] = QStringLiteral("cnotstored");
        QCOMPARE(storedTimeFor(d, QStringLiteral("triton_"), *stored), -1.0);
    }

    void loadingBadResultsSaysWhy() {
        JobRunner jobs;
        RebenchDialog dlg(QStringLiteral("/m.py"), test::h100Root(), &jobs);
        QVERIFY(loadAndWait(dlg, QStringLiteral("/no/such.json")).contains(QStringLiteral("cannot read")));
        QTemporaryFile f;
        QVERIFY(f.open());
        f.write("{\"devices\": [");
        f.flush();
        const QString truncated = loadAndWait(dlg, f.fileName());
        QVERIFY2(truncated.contains(QStringLiteral("no JSON")) && truncated.contains(f.fileName()),
                 qPrintable(truncated));
        // A FIFO in place of the file is refused at once (the read never blocks the job).
        const QString fifo =
            QDir::temp().filePath(QStringLiteral("kiln-rebench-fifo-%1").arg(QCoreApplication::applicationPid()));
        QVERIFY(::mkfifo(fifo.toLocal8Bit().constData(), 0600) == 0);
        const QString fifoErr = loadAndWait(dlg, fifo);
        ::unlink(fifo.toLocal8Bit().constData());
        QVERIFY2(fifoErr.contains(QStringLiteral("cannot read")), qPrintable(fifoErr));
        QVERIFY(dlg.controller()->results().isEmpty());
    }

    void realRunReportsWhyItFailed() {
        // This machine may lack a GPU or a Python with torch; either way the reason must surface.
        RebenchController ctl;
        QSignalSpy done(&ctl, &RebenchController::finished);
        const QString module =
            test::h100Root() + QStringLiteral("/am/camiztff5waav63ofwpyvoby6lsvzpn6inr3svorejdjq5pxctqf.py");
        QCOMPARE(ctl.start(module, QString()), QString());
        QVERIFY(test::waitFor([&] { return done.count() > 0; }, 200000));
        if (done.at(0).at(0).toBool()) {
            QVERIFY(!ctl.results().isEmpty());  // a machine with torch and a GPU: real timings
            QVERIFY(ctl.results()[0].graphMs > 0);
        } else {
            QVERIFY2(!done.at(0).at(1).toString().isEmpty(), "no reason given");
        }
        JobRunner jobs;
        RebenchDialog dlg(module, test::h100Root(), &jobs);
        dlg.showResults();
        QVERIFY(dlg.plot()->plottableCount() >= 1);
        QVERIFY(ctl.start(QStringLiteral("/no/such.py"), QString()).contains(QStringLiteral("no such module")));
    }
};

QTEST_MAIN(RebenchTest)
#include "rebench_test.moc"
