// Device comparison and compile-time views offscreen, on the fixture and a second "machine"
// derived from it; with KILN_SCREENSHOT_DIR set, also saves the screenshots used in the README.
#include <qcustomplot.h>
#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "charts/compare_chart.hpp"
#include "charts/compile_time_chart.hpp"
#include "timings/timing_cache_source.hpp"
#include "tuning/autotune_compare_model.hpp"
#include "tuning/autotune_compare_panel.hpp"
#include "tuning/timings_compile_panel.hpp"
#include "tuning/timings_panel.hpp"
#include "ui_test_support.hpp"
#include "util/python_json.hpp"

using namespace kiln::ui;
namespace kt = kiln::timings;

namespace {

QString cacheFile() {
    return QDir(test::h100Root() + QStringLiteral("/cache")).entryInfoList(QDir::Files).value(0).absoluteFilePath();
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The fixture's H100 timings, and a second machine where everything is 1.6x slower except the
// extern mm on the 512 shape, which wins there.
std::vector<kt::DeviceTimings> twoMachines() {
    const std::string text = readAll(cacheFile()).toStdString();
    auto j = kiln::py_loads(text).value();
    j["system"]["device"]["name"] = "synthetic: H100 x1.6";  // labelled as made up, also in screenshots
    for (auto& [inputs, byPrecision] : j["cache"]["mm"].items())
        for (auto& [precision, choices] : byPrecision.items())
            for (auto& [name, ms] : choices.items()) ms = ms.get<double>() * 1.6;
    j["cache"]["mm"].begin().value()["highest"]["mm-cqrjyn5jqdhj5q3lohxxeq3fxnpvy6qsigzdm2ykqas7fpkl7zrz"] = 0.0075;
    std::vector<kt::DeviceTimings> out;
    for (const auto& t : {text, j.dump()}) {
        auto f = kt::parse_timing_cache(t, "fixture", test::h100Root().toStdString());
        if (!f.ok()) qFatal("fixture did not parse");
        out.push_back({f->device, {}});
        out.back().set.ops = f->ops;
    }
    return out;
}

void screenshot(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("KILN_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    w->grab().save(dir + QLatin1Char('/') + name);
}

}  // namespace

class ChartsTest : public QObject {
    Q_OBJECT
private slots:
    void compareModelAndChart() {
        AutotuneComparePanel panel(nullptr);
        panel.resize(1300, 850);
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.addDevices(twoMachines());
        auto* model = panel.model();
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(model->columnCount(), 3 + 3 * 2 + 1);
        QCOMPARE(model->headerData(4, Qt::Horizontal).toString(), QStringLiteral("speed-up (NVIDIA H100 80GB HBM3)"));
        // 512 shape: the winner differs (a triton config on the H100, the extern mm on the other).
        QCOMPARE(model->index(0, model->columnCount() - 1).data().toString(), QStringLiteral("yes"));
        QCOMPARE(model->index(0, 3 + 3 + 2).data().toString(), QStringLiteral("mm"));
        QCOMPARE(model->index(0, 3 + 3 + 1).data().toString(),
                 QStringLiteral("%1×").arg(0.005791999865323305 / 0.0075, 0, 'f', 2));
        QCOMPARE(model->index(1, model->columnCount() - 1).data().toString(), QStringLiteral("no"));
        QCOMPARE(model->index(1, 3 + 3 + 1).data(AutotuneCompareModel::SortRole).toDouble(), 1 / 1.6);

        panel.selectOp(0);
        // 12 choices shown, each timed on both devices.
        QCOMPARE(panel.chart()->barCount(), 24);
        QCOMPARE(panel.chart()->table().rows.size(), 12);
        QTemporaryDir dir;
        QCOMPARE(panel.exportChart(dir.filePath(QStringLiteral("c.png"))), QString());
        QVERIFY(!QImage(dir.filePath(QStringLiteral("c.png"))).isNull());
        QCOMPARE(panel.exportData(dir.filePath(QStringLiteral("c.csv"))), QString());
        const QStringList lines = QString::fromUtf8(readAll(dir.filePath(QStringLiteral("c.csv"))))
                                      .split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        screenshot(&panel, QStringLiteral("compare.png"));
    }

    void compareLoadsFromDisk() {
        AutotuneComparePanel panel(nullptr);
        QSignalSpy spy(&panel, &AutotuneComparePanel::compared);
        panel.addSource(test::h100Root());
        QVERIFY(test::waitFor([&] { return !panel.isLoading(); }));
        QCOMPARE(panel.deviceCount(), 1);
        QCOMPARE(panel.model()->rowCount(), 0);  // one device: nothing to compare yet
        panel.addDevices({twoMachines()[1]});
        QCOMPARE(panel.deviceCount(), 2);
        QCOMPARE(panel.model()->rowCount(), 2);
    }

    void compileTimes() {
        TimingsCompilePanel panel(nullptr);
        panel.resize(1200, 700);
        QSignalSpy spy(&panel, &TimingsCompilePanel::loaded);
        panel.loadRoot(test::h100Root());
        QVERIFY(test::waitFor([&] { return spy.count() > 0; }));
        QCOMPARE(spy.at(0).at(0).toInt(), 13);
        QCOMPARE(panel.chart()->histogramTotal(), 13);
        const ChartTable t = panel.chart()->table();
        int graphs = 0;
        for (const auto& r : t.rows) graphs += r[0] == QStringLiteral("graph");
        QCOMPARE(graphs, 13);
        QTemporaryDir dir;
        QCOMPARE(writeChartTable(t, dir.filePath(QStringLiteral("t.json"))), QString());
        QVERIFY(readAll(dir.filePath(QStringLiteral("t.json"))).contains("triton_compiled"));
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        screenshot(&panel, QStringLiteral("compile-times.png"));
    }

    void autotuneScreenshot() {
        TimingsPanel panel(nullptr);
        panel.resize(1300, 850);
        QSignalSpy spy(&panel, &TimingsPanel::loaded);
        panel.load({test::h100Root(), test::fixtureDir() + QStringLiteral("/h100/stderr_cold.log")});
        QVERIFY(test::waitFor([&] { return spy.count() > 0; }));
        panel.selectOp(0);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        screenshot(&panel, QStringLiteral("autotune.png"));
    }
};

QTEST_MAIN(ChartsTest)
#include "charts_test.moc"
