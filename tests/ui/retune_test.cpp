// "Re-tune on this machine…": progress from the run's session logs; real reports in the dialog
// (tests/ui/data: a 4x H100 re-tune of the h100 fixture, and one H100's re-tune of three fp16 ops
// of a real max-autotune model whose 262144-byte choices cannot launch there) with what the
// hand-back will hand to torch, decided by the core as `kiln-cli handback` decides it; and real
// runs of kiln-cli retune that fail (no GPU here) or measure nothing, saying why.
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

#include "cuda/driver.hpp"
#include "handback/handback_plan.hpp"
#include "handback/handback_report.hpp"
#include "retune/recorded_compare.hpp"
#include "retune/run.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/runs/handback_bar.hpp"
#include "ui/runs/retune_controller.hpp"
#include "ui/runs/retune_dialog.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;

namespace {
QString dataFile(const char* name) {
    return test::sourceDir() + QStringLiteral("/tests/ui/data/") + QLatin1String(name);
}

// A cell's text; "(no item)" where the dialog set none.
QString cellText(const QTableWidget* t, int row, int column) {
    const QTableWidgetItem* item = t->item(row, column);
    return item ? item->text() : QStringLiteral("(no item)");
}

// Opens `path` in the dialog (read on the job runner) and waits until it is shown: its error or "".
QString openAndWait(RetuneDialog& dlg, const QString& path) {
    QSignalSpy shown(&dlg, &RetuneDialog::reportShown);
    if (!dlg.loadReportFile(path)) return QStringLiteral("not started");
    // A job that ended before its result was awaited delivers it at once (QFuture::then).
    if (shown.isEmpty() && !shown.wait(60000)) return QStringLiteral("never shown");
    return shown.first().first().toString();
}

// The core's decision on the same file, as `kiln-cli handback ROOT --from FILE` makes it.
kiln::handback::HandbackPlan corePlan(const QString& path, const QString& root) {
    auto run = kiln::handback::read_run_file(path.toStdString());
    if (!run) qFatal("%s", run.error().str().c_str());
    return kiln::handback::plan_handback(std::move(run).value(), test::openRoot(root)->opened());
}

kiln::retune::RecordedAgreement coreAgreement(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
    const QByteArray bytes = f.readAll();
    auto report = kiln::retune::retune_report_from_json(nlohmann::json::parse(bytes.constData()));
    if (!report) qFatal("%s", report.error().str().c_str());
    return kiln::retune::agreement_with_recorded(*report);
}
}  // namespace

class RetuneTest : public QObject {
    Q_OBJECT
private slots:
    void showsARealFourGpuReport() {
        JobRunner jobs;
        RetuneDialog dlg(test::openRoot(test::h100Root()), &jobs);
        const QString data = dataFile("retune_fixture_h100x4.json");
        QCOMPARE(openAndWait(dlg, data), QString());
        QCOMPARE(dlg.statusText(), QStringLiteral("41 of 41 choices measured, 0 failed"));
        QCOMPARE(dlg.deviceBars().size(), 4);
        int measured = 0;
        for (const QString& d : dlg.deviceBars()) measured += dlg.barValue(d);
        QCOMPARE(measured, 41);  // every choice of both ops, spread over the four GPUs
        QTableWidget* t = dlg.table();
        QCOMPARE(t->rowCount(), 41);
        QCOMPARE(t->columnCount(), 5 + 4 + 2);  // op, inputs, choice, kind, recorded, 4 devices, vs recorded, status
        QCOMPARE(t->horizontalHeaderItem(5)->text(), QStringLiteral("cuda:0 ms"));
        QCOMPARE(t->horizontalHeaderItem(9)->text(), QStringLiteral("Kiln vs recorded"));
        int externs = 0, withTime = 0;
        for (int r = 0; r < t->rowCount(); ++r) {
            if (cellText(t, r, 3) == QStringLiteral("extern")) ++externs;
            QVERIFY(cellText(t, r, 4) != QStringLiteral("—"));  // recorded
            for (int c = 5; c < 9; ++c)
                if (!cellText(t, r, c).isEmpty()) ++withTime;
            // One GPU measured each choice: its deviation, e.g. "cuda:2 -4.1 %".
            QVERIFY2(cellText(t, r, 9).contains(QStringLiteral(" %")), qPrintable(cellText(t, r, 9)));
            QCOMPARE(cellText(t, r, 10), QStringLiteral("ok"));
        }
        QCOMPARE(externs, 2);
        QCOMPARE(withTime, 41);
        // A run older than Kiln's torch-style timing names no statistic: the dialog says so.
        const QString s = dlg.summaryText();
        QVERIFY2(s.contains(QStringLiteral("names no statistic")), qPrintable(s));
        const auto a = coreAgreement(data);
        QCOMPARE(a.compared, 41);
        QVERIFY2(s.contains(QStringLiteral("%1 of 41 choices within 3 %").arg(a.within_3_percent)), qPrintable(s));
        // Both ops complete on the H100s, nothing written as Infinity: the core's own decision.
        const auto plan = corePlan(data, test::h100Root());
        QCOMPARE(plan.selection.ops.size(), std::size_t(2));
        QVERIFY2(s.contains(QStringLiteral("Hand-back: 2 of 2 ops will be handed back; 0 choices will be written as "
                                           "Infinity")),
                 qPrintable(s));
        QCOMPARE(dlg.handbackTable()->rowCount(), 0);
        QVERIFY(dlg.handback()->writeButton()->isEnabled());
        QCOMPARE(openAndWait(dlg, QStringLiteral("/nonexistent/run.json")).contains(QStringLiteral("cannot read")),
                 true);
    }

    // One H100's run of a real model's fp16 ops (torch 2.11's statistic): the choice each op cannot
    // launch on Hopper (262144 bytes of shared memory) is written as Infinity, with why, as torch
    // writes it; every op is handed back; Kiln's times are set beside torch's recorded ones.
    void showsWhatTheHandbackWritesAsInfinity() {
        JobRunner jobs;
        RetuneDialog dlg(test::openRoot(test::h100Root()), &jobs);
        const QString data = dataFile("retune_model_f16_h100.json");
        QCOMPARE(openAndWait(dlg, data), QString());
        const auto plan = corePlan(data, test::h100Root());
        QCOMPARE(plan.selection.ops.size(), std::size_t(3));
        QCOMPARE(plan.selection.skipped.size(), std::size_t(0));
        QCOMPARE(plan.infinite.size(), std::size_t(3));
        const QString s = dlg.summaryText();
        QVERIFY2(s.contains(QStringLiteral("Hand-back: 3 of 3 ops will be handed back; 3 choices will be written as "
                                           "Infinity (as torch writes a choice that fails)")),
                 qPrintable(s));
        // The statistic, named as the core names it.
        QVERIFY2(s.contains(QStringLiteral("Kiln's times (torch-min): ") +
                            QString::fromStdString(kiln::retune::statistic_description("torch-min"))),
                 qPrintable(s));
        const auto a = coreAgreement(data);
        QCOMPARE(a.compared, 60);  // 63 choices, 3 of which cannot launch
        QVERIFY2(s.contains(QStringLiteral("%1 of 60 choices within 3 %").arg(a.within_3_percent)), qPrintable(s));
        // Why Kiln's times sit below torch's, when they do: the core's note, word for word, or none.
        const QString note = QString::fromStdString(kiln::retune::agreement_note(a));
        if (note.isEmpty()) QVERIFY2(!s.contains(QStringLiteral("Python's launch")), qPrintable(s));
        else QVERIFY2(s.contains(note), qPrintable(s));
        QTableWidget* h = dlg.handbackTable();
        QCOMPARE(h->rowCount(), 3);
        for (int r = 0; r < h->rowCount(); ++r) {
            QCOMPARE(cellText(h, r, 0), QStringLiteral("Infinity"));
            QVERIFY2(cellText(h, r, 1).startsWith(QStringLiteral("triton_mm (BLOCK 128×128×128")),
                     qPrintable(cellText(h, r, 1)));
            QCOMPARE(cellText(h, r, 2), QString::fromStdString(plan.infinite[std::size_t(r)].why));
            QCOMPARE(cellText(h, r, 3), QStringLiteral("NVIDIA H100 80GB HBM3"));
            QCOMPARE(cellText(h, r, 4), QString::fromStdString(plan.infinite[std::size_t(r)].op));
        }
        QCOMPARE(cellText(h, 0, 2),
                 QStringLiteral("the kernel needs 262144 bytes of shared memory; this GPU allows 232448"));
        QVERIFY(dlg.handback()->writeButton()->isEnabled());
        dlg.findChild<QTabWidget*>()->setCurrentWidget(h);
        dlg.resize(1100, 620);
        test::saveScreenshot(&dlg, QStringLiteral("retune.png"));
    }

    // Two H200s each measured every choice (retune --each-device): one winner per op agreed from both
    // GPUs' times, the op where GPU 1's own pick was faster there shown with both times.
    void showsTheWinnerAgreedAcrossGpus() {
        JobRunner jobs;
        RetuneDialog dlg(test::openRoot(test::h100Root()), &jobs);
        const QString data = dataFile("retune_each_device_h200x2.json");
        QCOMPARE(openAndWait(dlg, data), QString());
        const auto plan = corePlan(data, test::h100Root());
        QCOMPARE(plan.selection.ops.size(), std::size_t(2));
        int differed = 0;
        for (const auto& op : plan.selection.ops) {
            QCOMPARE(op.agreed_from, (std::vector<int>{0, 1}));
            differed += op.devices_differed();
        }
        QCOMPARE(differed, 1);
        const QString s = dlg.summaryText();
        QVERIFY2(s.contains(QStringLiteral("Agreed across GPUs: 2 ops measured on every GPU; ") +
                            QString::fromStdString(kiln::handback::agreed_rule_text()) +
                            QStringLiteral(". The GPUs' own picks differed on 1")),
                 qPrintable(s));
        QTableWidget* h = dlg.handbackTable();
        QCOMPARE(h->rowCount(), static_cast<int>(1 + plan.infinite.size()));
        QCOMPARE(cellText(h, 0, 0), QStringLiteral("agreed"));
        QCOMPARE(cellText(h, 0, 1), QStringLiteral("mm"));  // the extern choice, as the report names it
        QVERIFY2(cellText(h, 0, 2).startsWith(QStringLiteral("cuda:1's own pick triton_mm (BLOCK")),
                 qPrintable(cellText(h, 0, 2)));
        QVERIFY2(
            cellText(h, 0, 2).contains(QStringLiteral("took 0.00832 ms there, the agreed one 0.00838 ms (+0.8 %)")),
            qPrintable(cellText(h, 0, 2)));
        QCOMPARE(cellText(h, 0, 3), QStringLiteral("NVIDIA H200"));
        QVERIFY(cellText(h, 0, 4).startsWith(QStringLiteral("mm [('cuda', 'torch.bfloat16', 1152, 1024")));
    }

    void aRunThatCannotStartReportsWhy() {
        // GPU 99 exists nowhere: without a driver (CI) cuInit fails, on a GPU host cuDeviceGet does.
        JobRunner jobs;
        RetuneDialog dlg(test::openRoot(test::h100Root()), &jobs);
        QSignalSpy done(dlg.controller(), &RetuneController::finished);
        RetuneRequest r;
        r.cacheRoot = test::h100Root();
        r.opened = test::openRoot(r.cacheRoot);
        r.devices = QStringLiteral("99");
        QCOMPARE(dlg.controller()->start(r), QString());
        QVERIFY(dlg.controller()->isRunning());
        QVERIFY(done.wait(60000));
        QCOMPARE(done.first().at(0).toBool(), false);
        const QString why = done.first().at(1).toString();
        QVERIFY2(why.contains(QStringLiteral("CUDA")) || why.contains(QStringLiteral("cuDeviceGet")), qPrintable(why));
        QCOMPARE(dlg.controller()->progress().measured, 0);
        QVERIFY2(dlg.summaryText().startsWith(QStringLiteral("Nothing was measured: ")), qPrintable(dlg.summaryText()));
        QVERIFY(!dlg.statusText().contains(QStringLiteral("0 of 0")));
        QVERIFY(!dlg.handback()->writeButton()->isEnabled());
    }

    // The child reads the root the window opened, inherited as a descriptor (`kiln-cli retune ROOT
    // --root-fd N`, issue 44): renamed after the open, nothing left at its path, the run still opens
    // it and fails only for want of GPU 99, as above (by its path it would find no cache at all).
    void theRunReadsTheRootTheWindowOpenedNotItsPath() {
        QTemporaryDir tmp;
        const std::filesystem::path root = tmp.filePath(QStringLiteral("inductor")).toStdString();
        std::filesystem::copy(test::h100Root().toStdString(), root, std::filesystem::copy_options::recursive);
        JobRunner jobs;
        RetuneRequest r;
        r.cacheRoot = QString::fromStdString(root.string());
        r.opened = test::openRoot(r.cacheRoot);
        r.devices = QStringLiteral("99");
        RetuneDialog dlg(r.opened, &jobs);
        std::filesystem::rename(root, root.parent_path() / "moved");
        QSignalSpy done(dlg.controller(), &RetuneController::finished);
        QCOMPARE(dlg.controller()->start(r), QString());
        QVERIFY(done.wait(60000));
        QCOMPARE(done.first().at(0).toBool(), false);
        const QString why = done.first().at(1).toString();
        QVERIFY2(why.contains(QStringLiteral("CUDA")) || why.contains(QStringLiteral("cuDeviceGet")), qPrintable(why));
        QVERIFY2(!why.contains(QStringLiteral("no such")), qPrintable(why));
    }

    // Issue 41: without a GPU the dialog says why, with the no-GPU workflow, not "0 of 0 choices measured".
    void withoutAGpuSaysWhyAndWhatToDoInstead() {
        if (kiln::cuda::driver_info().device_count > 0) QSKIP("this machine has a GPU: the run would measure");
        JobRunner jobs;
        RetuneDialog dlg(test::openRoot(test::h100Root()), &jobs);
        QSignalSpy ran(&dlg, &RetuneDialog::finishedRun);
        QCOMPARE(dlg.run(), QString());  // every GPU ("all"), as a user starts it
        QVERIFY(ran.wait(60000));
        const QString s = dlg.summaryText();
        const kiln::Error noGpu = kiln::retune::no_gpu_error("");
        QVERIFY2(s.startsWith(QStringLiteral("Nothing was measured: ") + QString::fromStdString(noGpu.message)),
                 qPrintable(s));
        // The core's hint, as a sentence of its own: the no-GPU workflow.
        QVERIFY2(s.contains(QStringLiteral("\nO") + QString::fromStdString(noGpu.hint).mid(1)), qPrintable(s));
        QVERIFY2(s.contains(QStringLiteral("On a machine without a GPU: `kiln-cli retune ROOT --list` shows what would "
                                           "run; on a GPU machine run `kiln-cli retune ROOT --json > retune.json`, "
                                           "then here `kiln-cli handback ROOT --from retune.json --write`")),
                 qPrintable(s));
        QVERIFY2(s.contains(QStringLiteral("open that retune.json with Open results…")), qPrintable(s));
        QVERIFY(!s.contains(QStringLiteral("0 of 0")));
        QCOMPARE(dlg.statusText(), QStringLiteral("Re-tune failed (why below)."));
        QVERIFY(!dlg.handback()->writeButton()->isEnabled());
    }

    // `retune --list --json` (what runs without a GPU) opened as results: an inventory measured nothing.
    void anInventoryMeasuredNothing() {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("inventory.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(test::runCli(
                    {QStringLiteral("retune"), test::h100Root(), QStringLiteral("--list"), QStringLiteral("--json")})
                    .toUtf8());
        f.close();
        JobRunner jobs;
        RetuneDialog dlg(test::openRoot(test::h100Root()), &jobs);
        QCOMPARE(openAndWait(dlg, path), QString());
        QCOMPARE(dlg.table()->rowCount(), 41);  // the choices that would run
        const QString s = dlg.summaryText();
        QVERIFY2(s.startsWith(QStringLiteral("Nothing was measured: this report is an inventory")), qPrintable(s));
        QVERIFY2(s.contains(QString::fromStdString(kiln::retune::no_gpu_error("").hint).mid(1)), qPrintable(s));
        QCOMPARE(dlg.statusText(), QStringLiteral("Nothing was measured (why below)."));
        QVERIFY(!dlg.handback()->writeButton()->isEnabled());
    }
};

QTEST_MAIN(RetuneTest)
#include "retune_test.moc"
