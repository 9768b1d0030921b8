// "Re-tune on this machine…": progress from the run's session logs, a real report from four H100s
// (tests/ui/data: `kiln-cli retune --devices all --json` on the h100 fixture) in the dialog, and a
// real run of kiln-cli retune whose failure (no GPU here) reaches the dialog.
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include "ui/runs/retune_controller.hpp"
#include "ui/runs/retune_dialog.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;

class RetuneTest : public QObject {
    Q_OBJECT
private slots:
    void progressCountsMeasurementsPerDevice() {
        const QString a = QStringLiteral(
            "{\"event\":\"session_start\",\"op\":\"mm\",\"choices\":3}\n"
            "{\"event\":\"measurement\",\"device\":\"cuda:0\",\"choice\":\"mm-c1\",\"status\":\"ok\",\"ms\":0.1}\n"
            "{\"event\":\"measurement\",\"device\":\"cuda:1\",\"choice\":\"triton_mm-c2\",\"status\":\"wrong\"}\n");
        const QString b = QStringLiteral(
            "{\"event\":\"session_start\",\"op\":\"bmm\",\"choices\":2}\n"
            "{\"event\":\"measurement\",\"device\":\"cuda:0\",\"choice\":\"bmm-c3\",\"status\":\"ok\",\"ms\":0.2}\n"
            "{\"event\":\"measur");  // a torn last line of a live log
        const RetuneProgress p = readRetuneProgress({a, b});
        QCOMPARE(p.planned, 5);
        QCOMPARE(p.measured, 3);
        QCOMPARE(p.failed, 1);
        QCOMPARE(p.perDevice.value(QStringLiteral("cuda:0")), 2);
        QCOMPARE(p.perDevice.value(QStringLiteral("cuda:1")), 1);
    }

    void showsARealFourGpuReport() {
        RetuneDialog dlg(test::h100Root());
        const QString data = test::sourceDir() + QStringLiteral("/tests/ui/data/retune_fixture_h100x4.json");
        QCOMPARE(dlg.loadReportFile(data), QString());
        QCOMPARE(dlg.deviceBars().size(), 4);
        int measured = 0;
        for (const QString& d : dlg.deviceBars()) measured += dlg.barValue(d);
        QCOMPARE(measured, 41);  // every choice of both ops, spread over the four GPUs
        QTableWidget* t = dlg.table();
        QCOMPARE(t->rowCount(), 41);
        QCOMPARE(t->columnCount(), 5 + 4 + 1);  // op, inputs, choice, kind, recorded, 4 devices, status
        QCOMPARE(t->horizontalHeaderItem(5)->text(), QStringLiteral("cuda:0 ms"));
        int externs = 0, withTime = 0;
        for (int r = 0; r < t->rowCount(); ++r) {
            if (t->item(r, 3)->text() == QStringLiteral("extern")) ++externs;
            QVERIFY(t->item(r, 4)->text() != QStringLiteral("—"));  // recorded
            for (int c = 5; c < 9; ++c)
                if (!t->item(r, c)->text().isEmpty()) ++withTime;
            QCOMPARE(t->item(r, 9)->text(), QStringLiteral("ok"));
        }
        QCOMPARE(externs, 2);
        QCOMPARE(withTime, 41);
        QVERIFY(!dlg.controller()->loadReport("not json").isEmpty());
    }

    void aRunThatCannotStartReportsWhy() {
        // GPU 99 exists nowhere: without a driver (CI) cuInit fails, on a GPU host cuDeviceGet does.
        RetuneDialog dlg(test::h100Root());
        QSignalSpy done(dlg.controller(), &RetuneController::finished);
        RetuneRequest r;
        r.cacheRoot = test::h100Root();
        r.devices = QStringLiteral("99");
        QCOMPARE(dlg.controller()->start(r), QString());
        QVERIFY(dlg.controller()->isRunning());
        QVERIFY(done.wait(60000));
        QCOMPARE(done.first().at(0).toBool(), false);
        const QString why = done.first().at(1).toString();
        QVERIFY2(why.contains(QStringLiteral("CUDA")) || why.contains(QStringLiteral("cuDeviceGet")), qPrintable(why));
        QCOMPARE(dlg.controller()->progress().measured, 0);
    }
};

QTEST_MAIN(RetuneTest)
#include "retune_test.moc"
