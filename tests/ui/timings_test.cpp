// The Autotune tab offscreen on the real fixture: table model, chart data against the table,
// log toggle, tooltips and clicks, export (PNG/PDF/SVG, CSV/JSON).
#include <qcustomplot.h>
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListWidget>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QTest>

#include <QSet>
#include <QTreeView>

#include <algorithm>
#include <cmath>
#include <map>

#include "ui/charts/choice_bar_chart.hpp"
#include "ui/charts/choice_bars.hpp"
#include "ui/tuning/autotune_table_model.hpp"
#include "ui/tuning/op_list_texts.hpp"
#include "ui/tuning/timings_panel.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;

class TimingsTest : public QObject {
    Q_OBJECT
private:
    // Loads `paths` into a fresh panel and waits for the background read.
    static std::unique_ptr<TimingsPanel> loaded(const QStringList& paths) {
        auto panel = std::make_unique<TimingsPanel>(nullptr);
        panel->resize(1200, 800);
        QSignalSpy spy(panel.get(), &TimingsPanel::loaded);
        panel->load(paths);
        if (!test::waitFor([&] { return spy.count() > 0; })) qWarning("timings did not load");
        return panel;
    }
    static QString cacheFile() {
        return QDir(test::h100Root() + QStringLiteral("/cache")).entryInfoList(QDir::Files).value(0).absoluteFilePath();
    }

private slots:
    void modelPassesTester() {
        auto panel = loaded({test::h100Root()});
        QAbstractItemModelTester tester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(panel->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(panel->opList()->count(), 10);    // 2 mm ops, 5 best_config, 3 kernel_perf
        QCOMPARE(panel->model()->rowCount(), 10);  // one group per op
        int choices = 0;
        for (int op = 0; op < 10; ++op) choices += panel->model()->rowCount(panel->model()->opIndex(op));
        QCOMPARE(choices, 20 + 21 + 5 + 3);
        for (int op = 0; op < panel->opList()->count(); ++op) panel->selectOp(op);  // expand/collapse under the testers
        panel->table()->sortByColumn(AutotuneTableModel::PercentCol, Qt::DescendingOrder);
        panel->table()->sortByColumn(AutotuneTableModel::MsCol, Qt::AscendingOrder);
    }

    // Grouped by op as `kiln-cli timings --json` (the real process) lists them: each group says its
    // op, inputs, precision and device once and holds that op's choices, the winner marked; sorting
    // by time or % keeps the groups in order; parameters read tile sizes, warps, stages first.
    void groupsMatchCliJson() {
        auto panel = loaded({test::h100Root()});
        const QJsonArray ops = test::runCliJson({QStringLiteral("timings"), QStringLiteral("--json"), test::h100Root()})
                                   .object()[QStringLiteral("ops")]
                                   .toArray();
        QCOMPARE(ops.size(), 10);
        for (auto order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            panel->table()->sortByColumn(AutotuneTableModel::MsCol, order);
            auto* proxy = panel->proxy();
            QCOMPARE(proxy->rowCount(), ops.size());
            for (int i = 0; i < ops.size(); ++i) {
                const QJsonObject op = ops[i].toObject();
                const QModelIndex g = proxy->index(i, 0);
                QVERIFY(g.data(AutotuneTableModel::IsOpRole).toBool());
                QCOMPARE(g.data(AutotuneTableModel::OpNameRole).toString(), op[QStringLiteral("op")].toString());
                QCOMPARE(g.data(AutotuneTableModel::InputsRole).toString(), op[QStringLiteral("inputs")].toString());
                QCOMPARE(g.data(AutotuneTableModel::PrecisionRole).toString(),
                         op[QStringLiteral("precision")].toString());
                QCOMPARE(g.data(AutotuneTableModel::DeviceRole).toString(), op[QStringLiteral("device")].toString());
                QVERIFY(g.data().toString().contains(op[QStringLiteral("inputs")].toString()));
                if (!op[QStringLiteral("device")].toString().isEmpty())
                    QVERIFY(g.data().toString().contains(op[QStringLiteral("device")].toString()));
                const QJsonArray choices = op[QStringLiteral("choices")].toArray();
                QCOMPARE(proxy->rowCount(g), choices.size());
                // Choices sorted by time inside the group, the winner first when ascending.
                double prev = order == Qt::AscendingOrder ? -HUGE_VAL : HUGE_VAL;  // failed choices sort as inf
                QString best, bestLabel;
                std::vector<double> times;
                for (int c = 0; c < choices.size(); ++c) {
                    const QModelIndex ms = proxy->index(c, AutotuneTableModel::MsCol, g);
                    const double t = ms.data(AutotuneTableModel::SortRole).toDouble();
                    QVERIFY(order == Qt::AscendingOrder ? t >= prev : t <= prev);
                    prev = t;
                    if (ms.data(AutotuneTableModel::IsBestRole).toBool()) {
                        best = ms.data(AutotuneTableModel::NameRole).toString();
                        bestLabel = proxy->index(c, AutotuneTableModel::ChoiceCol, g).data().toString().mid(2);
                    }
                    times.push_back(t);
                    // Parameters: the same keys as the JSON, the known ones first in their order.
                    const QString name = ms.data(AutotuneTableModel::NameRole).toString();
                    QJsonObject params;
                    for (const auto& cj : choices)
                        if (cj.toObject()[QStringLiteral("choice")].toString() == name)
                            params = cj.toObject()[QStringLiteral("params")].toObject();
                    const QStringList keys = ms.data(AutotuneTableModel::ParamKeysRole).toStringList();
                    const QStringList jsonKeys = params.keys();
                    QCOMPARE(QSet<QString>(keys.begin(), keys.end()), QSet<QString>(jsonKeys.begin(), jsonKeys.end()));
                    // Tile sizes (template, pointwise, reduction), then warps and stages.
                    const QStringList known = QStringLiteral(
                                                  "BLOCK_M BLOCK_N BLOCK_K XBLOCK YBLOCK ZBLOCK R0_BLOCK "
                                                  "R1_BLOCK RBLOCK num_warps num_stages")
                                                  .split(QLatin1Char(' '));
                    QStringList expectFront;
                    for (const auto& k : known)
                        if (params.contains(k)) expectFront << k;
                    QCOMPARE(keys.mid(0, expectFront.size()), expectFront);
                    const QString shown = proxy->index(c, AutotuneTableModel::ParamsCol, g).data().toString();
                    if (!keys.isEmpty()) QVERIFY2(shown.startsWith(keys.front() + QLatin1Char('=')), qPrintable(shown));
                    // Elided in the view, whole in the tooltip.
                    for (const auto& k : keys)
                        QVERIFY(proxy->index(c, AutotuneTableModel::ParamsCol, g)
                                    .data(Qt::ToolTipRole)
                                    .toString()
                                    .contains(k + QLatin1Char('=')));
                }
                QCOMPARE(best, op[QStringLiteral("best")].toString());
                // The heading names the winner and, with a runner-up, its margin over it.
                std::sort(times.begin(), times.end());
                if (times.size() > 1 && times[0] > 0 && std::isfinite(times[1])) {
                    const double margin = (times[1] / times[0] - 1) * 100;
                    QCOMPARE(g.data(AutotuneTableModel::MarginRole).toDouble(), margin);
                    QVERIFY2(
                        g.data().toString().contains(QString::number(margin, 'f', 1) + QStringLiteral("% ahead of")),
                        qPrintable(g.data().toString()));
                    QVERIFY2(g.data().toString().contains(bestLabel), qPrintable(bestLabel));
                }
            }
        }
    }

    // The chart's data is the table's: same choices, same times, the same winner, sorted.
    void chartMatchesTable() {
        auto panel = loaded({test::h100Root()});
        for (int op = 0; op < 2; ++op) {
            panel->selectOp(op);
            const ChoiceBars& bars = panel->chart()->bars();
            auto* proxy = panel->proxy();
            const QModelIndex group = proxy->index(op, 0);
            QVERIFY(panel->table()->isExpanded(group));  // the chart's op is the open group
            std::map<QString, double> table;
            QString tableBest;
            for (int r = 0; r < proxy->rowCount(group); ++r) {
                auto idx = proxy->index(r, AutotuneTableModel::MsCol, group);
                const QString name = idx.data(AutotuneTableModel::NameRole).toString();
                table[name] = idx.data(AutotuneTableModel::SortRole).toDouble();
                if (idx.data(AutotuneTableModel::IsBestRole).toBool()) tableBest = name;
            }
            QCOMPARE(int(table.size()), bars.names.size());
            for (int i = 0; i < bars.names.size(); ++i) {
                QVERIFY2(table.count(bars.names[i]), qPrintable(bars.names[i]));
                QCOMPARE(bars.ms[i], table[bars.names[i]]);
                if (i > 0) QVERIFY(bars.ms[i - 1] <= bars.ms[i]);
            }
            QCOMPARE(bars.winner, 0);
            QCOMPARE(bars.names[bars.winner], tableBest);
            // The first row of the group (sorted by ms) is the winner, shown as 100%.
            QCOMPARE(proxy->index(0, AutotuneTableModel::PercentCol, group).data().toString(),
                     QStringLiteral("100.0%"));
        }
        // Parameters joined from the kernel module of the 512x512 winner.
        panel->selectOp(0);
        QVERIFY(panel->chart()->bars().tooltips[0].contains(QStringLiteral("BLOCK_M=64")));
        QVERIFY(panel->chart()->bars().modules[0].endsWith(QStringLiteral(".py")));
    }

    // The fixture's timing file and its mm log JSON, loaded together, agree on every best time.
    void timingFileAndMmLogAgree() {
        auto panel = loaded({cacheFile(), test::fixtureDir() + QStringLiteral("/h100/mm_log.json")});
        auto set = panel->model()->timings();
        // The mm log is the same autotuning as the timing cache: joined, one op per shape, each
        // choice seen in both with the same time.
        QCOMPARE(int(set->ops.size()), 2);
        for (const auto& op : set->ops) {
            QCOMPARE(op.also_from.size(), std::size_t(1));
            QVERIFY(op.also_from[0].find("mm_log") != std::string::npos);
            for (const auto& c : op.choices) {
                QCOMPARE(c.seen_in.size(), std::size_t(2));
                QCOMPARE(c.seen_in[1].kind, kiln::timings::SourceKind::mm_log);
                QCOMPARE(c.seen_in[1].ms, c.seen_in[0].ms);
            }
        }
    }

    void logToggleTooltipAndClick() {
        auto panel = loaded({test::h100Root()});
        panel->show();
        QVERIFY(QTest::qWaitForWindowExposed(panel.get()));
        panel->selectOp(0);
        auto* chart = panel->chart();
        auto* plot = chart->plot();
        chart->setLogScale(true);
        QCOMPARE(plot->xAxis->scaleType(), QCPAxis::stLogarithmic);
        chart->setLogScale(false);
        QCOMPARE(plot->xAxis->scaleType(), QCPAxis::stLinear);
        // The winner's bar (key 0): a point inside it maps back to bar 0.
        const double ms0 = chart->bars().ms[0];
        QPoint inBar(int(plot->xAxis->coordToPixel(ms0 / 2)), int(plot->yAxis->coordToPixel(0)));
        QCOMPARE(chart->barAt(inBar), 0);
        QPoint pastBar(int(plot->xAxis->coordToPixel(chart->bars().ms.back() * 1.05)), inBar.y());
        QCOMPARE(chart->barAt(pastBar), -1);
        QSignalSpy clicked(panel.get(), &TimingsPanel::moduleSelected);
        QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, inBar);
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.at(0).at(0).toString(), chart->bars().modules[0]);
    }

    void exportsChartAndData() {
        auto panel = loaded({test::h100Root()});
        panel->selectOp(1);
        QTemporaryDir dir;
        for (const char* ext : {"png", "pdf", "svg"}) {
            const QString path = dir.filePath(QStringLiteral("chart.") + QLatin1String(ext));
            QCOMPARE(panel->exportChart(path), QString());
            QVERIFY2(QFileInfo(path).size() > 1000, ext);
        }
        QImage png(dir.filePath(QStringLiteral("chart.png")));
        QVERIFY(!png.isNull());
        QVERIFY(png.width() > 100 && png.height() > 100);
        QVERIFY(panel->exportChart(dir.filePath(QStringLiteral("chart.bmp"))).contains(QStringLiteral("unknown")));

        const QString csvPath = dir.filePath(QStringLiteral("data.csv"));
        QCOMPARE(panel->exportData(csvPath), QString());
        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + 21);
        QCOMPARE(lines[0], QStringLiteral("rank,choice,ms,winner,module"));
        for (int i = 1; i < lines.size(); ++i) {
            const QStringList f = lines[i].split(QLatin1Char(','));
            QCOMPARE(f.size(), 5);
            QCOMPARE(f[0].toInt(), i);
            bool ok = false;
            QCOMPARE(f[2].toDouble(&ok), panel->chart()->bars().ms[i - 1]);
            QVERIFY(ok);
        }
        QVERIFY(lines[1].contains(QStringLiteral(",yes,")));

        const QString jsonPath = dir.filePath(QStringLiteral("data.json"));
        QCOMPARE(panel->exportData(jsonPath), QString());
        QFile jf(jsonPath);
        QVERIFY(jf.open(QIODevice::ReadOnly));
        auto doc = QJsonDocument::fromJson(jf.readAll());
        QCOMPARE(doc.object()[QStringLiteral("rows")].toArray().size(), 21);
        QVERIFY(doc.object()[QStringLiteral("rows")].toArray()[0].toObject()[QStringLiteral("ms")].isDouble());
    }

    // Issue 18: the row the Autotune table marks "used by graph ..." is the autotune match that
    // `kiln-cli show ENTRY --kernels --json` names for the template kernel that entry launches.
    void usedByGraphMarksTheRowShowKernelsNames() {
        auto panel = loaded({test::h100Root()});
        auto* model = panel->model();
        int marked = 0;
        QStringList shown;  // the column's texts, each once: what opListTexts hands the view to size it
        for (int op = 0; op < model->rowCount(); ++op) {
            const QModelIndex g = model->opIndex(op);
            for (int c = 0; c < model->rowCount(g); ++c) {
                const QModelIndex row = model->index(c, AutotuneTableModel::UsedByCol, g);
                const QStringList keys = row.data(AutotuneTableModel::UsedByRole).toStringList();
                if (keys.isEmpty()) {
                    QVERIFY(row.data().toString().isEmpty());
                    continue;
                }
                QVERIFY2(row.data().toString().startsWith(QStringLiteral("used by graph ")),
                         qPrintable(row.data().toString()));
                if (!shown.contains(row.data().toString())) shown << row.data().toString();
                QVERIFY(row.data(Qt::ToolTipRole).toString().contains(keys.front()));
                QVERIFY(g.data().toString().contains(QStringLiteral("used by graph")));  // the heading says it too
                for (const QString& key : keys) {
                    ++marked;
                    const QString dir =
                        test::h100Root() + QStringLiteral("/fxgraph/") + key.mid(1, 2) + QLatin1Char('/') + key;
                    const QJsonArray kernels = test::runCliJson({QStringLiteral("show"), dir,
                                                                 QStringLiteral("--kernels"), QStringLiteral("--json")})
                                                   .object()[QStringLiteral("kernels")]
                                                   .toArray();
                    QStringList named;
                    for (const auto& k : kernels) {
                        const QJsonValue a = k.toObject()[QStringLiteral("autotune")];
                        if (a.isObject()) named << a.toObject()[QStringLiteral("choice")].toString();
                    }
                    QCOMPARE(named, QStringList{row.data(AutotuneTableModel::NameRole).toString()});
                }
            }
        }
        QVERIFY(marked >= 1);  // the fixture's max-autotune mm graph runs a template choice
        QCOMPARE(opListTexts(*model->timings()).usedBy, shown);
    }

    void unreadablePathShowsReason() {
        auto panel = loaded({QStringLiteral("/no/such/dir")});
        QCOMPARE(panel->model()->rowCount(), 0);
        QCOMPARE(panel->opList()->count(), 0);
    }
};

QTEST_MAIN(TimingsTest)
#include "timings_test.moc"
