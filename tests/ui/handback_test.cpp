// The hand-back buttons of a finished re-tune (issue 31): nothing written before a click; each
// click writes through kiln-cli and says where and for which device; a refused write says so.
#include <QDir>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>

#include "../support/retune_run_fixture.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/runs/handback_bar.hpp"
#include "ui/runs/retune_dialog.hpp"
#include "ui_test_support.hpp"
#ifdef KILN_HAVE_REMOTE
#include "../support/redis_server.hpp"
#endif

using namespace kiln::ui;
namespace fs = std::filesystem;

namespace {
const QString kH200File = QStringLiteral("c33ff64252de0fc95aafeb63c22d2f93666cf684f9102841c20702613368c40d");
}

class HandbackTest : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    QString root_, run_;

    bool clickAndWait(HandbackBar& bar, void (HandbackBar::*action)()) {
        QSignalSpy done(&bar, &HandbackBar::finished);
        (bar.*action)();
        if (!done.wait(60000)) return false;
        return done.first().first().toBool();
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        root_ = tmp_.filePath(QStringLiteral("root"));
        fs::copy(test::h100Root().toStdString(), root_.toStdString(), fs::copy_options::recursive);
        run_ = tmp_.filePath(QStringLiteral("run.json"));
        const auto h100 = kiln::test::cache_file_for(test::h100Root().toStdString(), "NVIDIA H100 80GB HBM3");
        std::ofstream(run_.toStdString())
            << kiln::py_dumps(kiln::test::run_json_from_cache_file(h100, "NVIDIA H200", 0.8));
    }

    void nothingIsWrittenWithoutAClick() {
        HandbackBar bar;
        QVERIFY(!bar.writeButton()->isEnabled());
        QVERIFY(!bar.pinButton()->isEnabled());
        bar.setRun(root_, run_);
        QVERIFY(bar.writeButton()->isEnabled());
        QTest::qWait(200);
        QVERIFY(!QFile::exists(root_ + QStringLiteral("/cache/") + kH200File));
    }

    void writeSaysWhereAndForWhichDevice() {
        HandbackBar bar;
        bar.setRun(root_, run_);
        QVERIFY(clickAndWait(bar, &HandbackBar::writeTimingCache));
        const QString s = bar.statusText();
        QVERIFY2(s.contains(QStringLiteral("/cache/") + kH200File), qPrintable(s));
        QVERIFY2(s.contains(QStringLiteral("for NVIDIA H200")), qPrintable(s));
        QVERIFY(QFile::exists(root_ + QStringLiteral("/cache/") + kH200File));
    }

    void lookupTableIsANewFileOrNothing() {
        HandbackBar bar;
        bar.setRun(root_, run_);
        const QString table = tmp_.filePath(QStringLiteral("table.json"));
        bar.askTablePath = [table] { return table; };
        QVERIFY(clickAndWait(bar, &HandbackBar::saveLookupTable));
        QVERIFY2(bar.statusText().contains(QStringLiteral("pinned 2 op(s) into ") + table),
                 qPrintable(bar.statusText()));
        QVERIFY2(bar.statusText().contains(QStringLiteral("on NVIDIA H200 ->")), qPrintable(bar.statusText()));
        QFile f(table);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray before = f.readAll();
        f.close();
        QVERIFY(!clickAndWait(bar, &HandbackBar::saveLookupTable));  // the path exists now
        QVERIFY2(bar.statusText().contains(QStringLiteral("nothing was written")), qPrintable(bar.statusText()));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
        // Cancelling the dialog writes nothing and starts nothing.
        bar.askTablePath = [] { return QString(); };
        bar.saveLookupTable();
        QVERIFY(!bar.isRunning());
    }

#ifdef KILN_HAVE_REMOTE
    void publishSaysWhere() {
        kiln::test::RedisServer server;
        HandbackBar bar;
        bar.setRun(root_, run_);
        const QString url = QString::fromStdString(server.url(0));
        bar.askRedisUrl = [url] { return url; };
        QVERIFY(clickAndWait(bar, &HandbackBar::publishToRedis));
        QVERIFY2(bar.statusText().contains(QStringLiteral("published 2 op(s) to redis://127.0.0.1:")),
                 qPrintable(bar.statusText()));
    }
#endif

    // In retune's own dialog: a loaded run (a real 4x H100 re-tune of the fixture, tests/ui/data)
    // enables the buttons, and "Write timing cache" replaces the fixture's two ops for the H100.
    void retuneDialogHandsItsRunBack() {
        QTemporaryDir dir;
        const QString root = dir.filePath(QStringLiteral("root"));
        fs::copy(test::h100Root().toStdString(), root.toStdString(), fs::copy_options::recursive);
        JobRunner jobs;
        RetuneDialog dlg(test::openRoot(root), &jobs);
        QVERIFY(!dlg.handback()->writeButton()->isEnabled());
        QSignalSpy shown(&dlg, &RetuneDialog::reportShown);
        QVERIFY(dlg.loadReportFile(test::sourceDir() + QStringLiteral("/tests/ui/data/retune_fixture_h100x4.json")));
        QVERIFY(!shown.isEmpty() || shown.wait(60000));  // a job that ended at once has delivered already
        QCOMPARE(shown.first().first().toString(), QString());
        QVERIFY(dlg.handback()->writeButton()->isEnabled());
        QVERIFY(clickAndWait(*dlg.handback(), &HandbackBar::writeTimingCache));
        const QString s = dlg.handback()->statusText();
        QVERIFY2(s.contains(QStringLiteral("wrote 2 op(s) (0 new, 2 replaced)")), qPrintable(s));
        QVERIFY2(s.contains(QStringLiteral("for NVIDIA H100 80GB HBM3")), qPrintable(s));
    }

    void summaryKeepsTheWhereLines() {
        const QString out = QStringLiteral(
            "2 complete op(s) (every choice measured ok on one device)\n"
            "wrote 2 op(s) (2 new, 0 replaced) to /r/cache/abc\n  for NVIDIA H200; Triton key and CUDA version from x\n"
            "pinned 1 op(s) into /t.json:\n  mm [..] highest on NVIDIA H200 -> mm-c (0.0100 ms) {}\n");
        const QString s = handbackSummary(out);
        QVERIFY(!s.contains(QStringLiteral("complete op")));
        QVERIFY(s.contains(QStringLiteral("for NVIDIA H200")));
        QVERIFY(s.contains(QStringLiteral("on NVIDIA H200 -> mm-c")));
    }
};

QTEST_MAIN(HandbackTest)
#include "handback_test.moc"
