// The launcher's controller runs a real CPU example session through kiln-cli autotune (the core
// engine: compile pool, kiln-worker processes, timing cache, session log) offscreen.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include <signal.h>

#include <set>

#include "timings/collect.hpp"
#include "ui/charts/choice_bar_chart.hpp"
#include "ui/runs/launcher_controller.hpp"
#include "ui/runs/launcher_dialog.hpp"
#include "ui_test_support.hpp"

using namespace kiln::ui;

namespace {

QString example(const QString& name) {
    return qEnvironmentVariable("KILN_SOURCE_DIR") + QStringLiteral("/resources/examples/") + name;
}

// Alive and not a zombie (a reparented worker that exited may linger as one until reaped).
bool processAlive(qint64 pid) {
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) != 0) return false;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly)) return false;
    const QByteArray s = stat.readAll();
    const int close = s.lastIndexOf(')');
    return close < 0 || s.mid(close + 2, 1) != "Z";
}

// The CPU matmul example with longer timing loops, so a session lasts long enough to watch it
// grow (and to cancel it) however fast the machine is.
QString slowSpec(const QTemporaryDir& dir, int repMs) {
    QFile f(example(QStringLiteral("matmul_cpu.json")));
    if (!f.open(QIODevice::ReadOnly)) return {};
    QJsonObject spec = QJsonDocument::fromJson(f.readAll()).object();
    spec[QStringLiteral("template_file")] = example(QStringLiteral("matmul_cpu.cpp"));
    spec[QStringLiteral("timing")] = QJsonObject{{QStringLiteral("warmup_ms"), 20}, {QStringLiteral("rep_ms"), repMs}};
    const QString path = dir.filePath(QStringLiteral("matmul_cpu_slow.json"));
    QFile o(path);
    if (!o.open(QIODevice::WriteOnly)) return {};
    o.write(QJsonDocument(spec).toJson());
    return path;
}

std::set<qint64> workerPids(const QString& sessionLog) {
    std::set<qint64> pids;
    QFile f(sessionLog);
    if (!f.open(QIODevice::ReadOnly)) return pids;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const auto j = QJsonDocument::fromJson(line).object();
        if (j.value(QStringLiteral("event")).toString() == QStringLiteral("worker_started"))
            pids.insert(j.value(QStringLiteral("pid")).toInteger());
    }
    return pids;
}

}  // namespace

class LauncherTest : public QObject {
    Q_OBJECT
private slots:
    void strategyGoesToKilnCliAsOptions() {
        // The spec is passed as it is (no rewritten copy); the launcher's choices are autotune's options.
        LaunchRequest r;
        r.specPath = example(QStringLiteral("matmul_cpu.json"));
        r.cacheRoot = QStringLiteral("/c");
        r.strategy = QStringLiteral("random");
        r.budget = 3;
        r.seconds = 2.5;
        const QStringList args = LauncherController::autotuneArguments(r, QStringLiteral("/c/s.jsonl"));
        QCOMPARE(args.mid(0, 2), (QStringList{QStringLiteral("autotune"), r.specPath}));
        auto after = [&](const char* opt) {
            const auto i = args.indexOf(QString::fromLatin1(opt));
            return i < 0 || i + 1 >= args.size() ? QString() : args[i + 1];
        };
        QCOMPARE(after("--strategy"), QStringLiteral("random"));
        QCOMPARE(after("--budget"), QStringLiteral("3"));
        QCOMPARE(after("--seconds"), QStringLiteral("2.5"));
        QCOMPARE(after("--session-log"), QStringLiteral("/c/s.jsonl"));
        // "As in the spec" passes no strategy; a budget is only a random search's.
        r.strategy.clear();
        QVERIFY(!LauncherController::autotuneArguments(r, {}).contains(QStringLiteral("--strategy")));
        QVERIFY(!LauncherController::autotuneArguments(r, {}).contains(QStringLiteral("--budget")));
        r.strategy = QStringLiteral("exhaustive");
        r.seconds = 0;
        QVERIFY(!LauncherController::autotuneArguments(r, {}).contains(QStringLiteral("--budget")));
        QVERIFY(!LauncherController::autotuneArguments(r, {}).contains(QStringLiteral("--seconds")));
    }

    void aBadSpecIsRefusedBeforeKilnCliStarts() {
        QTemporaryDir dir, root;
        LauncherController ctl;
        LaunchRequest r;
        r.specPath = dir.filePath(QStringLiteral("missing.json"));
        r.cacheRoot = root.path();
        QVERIFY(ctl.start(r).contains(QStringLiteral("missing.json")));
        QVERIFY(!ctl.isRunning());
    }

    void dialogListsExamples() {
        LauncherDialog dlg(QStringLiteral("/tmp"));
        QVERIFY(dlg.specBox()->count() >= 4);
        QVERIFY(dlg.specBox()->findText(QStringLiteral("matmul_cpu.json")) >= 0);
        QVERIFY(!dlg.request().devices.isEmpty());
    }

    // A CPU session finishes, the chart follows the session log while it runs, and the results
    // are persisted as kiln-cli autotune persists them (timing cache + session log).
    void cpuSessionFinishesLiveAndPersists() {
        QTemporaryDir root, specs;
        LauncherController ctl;
        ChoiceBarChart chart;
        QSignalSpy updated(&ctl, &LauncherController::updated);
        QSignalSpy finished(&ctl, &LauncherController::finished);
        std::set<int> barCounts;
        connect(&ctl, &LauncherController::updated, &chart, [&] {
            if (ctl.timings() && !ctl.timings()->ops.empty()) chart.setOp(ctl.timings()->ops.front());
            barCounts.insert(chart.bars().names.size());
        });
        LaunchRequest r;
        r.specPath = slowSpec(specs, 400);
        r.devices = QStringLiteral("cpu");
        r.strategy = QStringLiteral("random");
        r.budget = 5;
        r.cacheRoot = root.path();
        QCOMPARE(ctl.start(r), QString());
        QVERIFY(ctl.isRunning());
        QVERIFY2(test::waitFor([&] { return finished.count() > 0; }, 280000), qPrintable(ctl.errorOutput()));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString() + ctl.errorOutput()));
        QVERIFY(updated.count() >= 2);
        QVERIFY(barCounts.size() >= 2);  // the chart grew as measurements arrived
        QVERIFY(ctl.logReads() >= 2);    // each read a job on the controller's pool, off the UI thread
        QVERIFY(QFileInfo::exists(ctl.sessionLogPath()));
        QCOMPARE(ctl.measured(), ctl.planned());
        // Persisted: the timing cache under the root holds the op, and the session log reads back.
        auto set = kiln::timings::collect_timings({root.path().toStdString()});
        QVERIFY(set.ok());
        // The timing cache and the session log describe the same op on the same device: one op, from both.
        int ops = 0, fromSession = 0;
        for (const auto& op : set->ops) {
            if (op.op != "kiln_matmul_cpu") continue;
            ++ops;
            fromSession += op.source == ctl.sessionLogPath().toStdString() ||
                           std::count(op.also_from.begin(), op.also_from.end(), ctl.sessionLogPath().toStdString());
            QVERIFY(op.source != ctl.sessionLogPath().toStdString());  // the cache's exact times come first
            QVERIFY(!op.best.empty());
        }
        QCOMPARE(ops, 1);
        QCOMPARE(fromSession, 1);
        QVERIFY(!workerPids(ctl.sessionLogPath()).empty());
    }

    void cancelStopsWorkers() {
        QTemporaryDir root, specs;
        LauncherController ctl;
        QSignalSpy finished(&ctl, &LauncherController::finished);
        LaunchRequest r;
        r.specPath = slowSpec(specs, 3000);
        r.devices = QStringLiteral("cpu");
        r.strategy = QStringLiteral("exhaustive");
        r.cacheRoot = root.path();
        QCOMPARE(ctl.start(r), QString());
        const qint64 cli = ctl.processId();
        // Wait until the worker has started (it is in the session log), then cancel.
        QVERIFY(
            test::waitFor([&] { return !workerPids(ctl.sessionLogPath()).empty() || finished.count() > 0; }, 240000));
        QVERIFY2(finished.count() == 0, "the session ended before it could be cancelled");
        const auto workers = workerPids(ctl.sessionLogPath());
        for (qint64 pid : workers) QVERIFY(processAlive(pid));
        ctl.cancel();
        QVERIFY(test::waitFor([&] { return finished.count() > 0; }, 20000));
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QCOMPARE(finished.at(0).at(1).toString(), QStringLiteral("cancelled"));
        QVERIFY(!ctl.isRunning());
        QVERIFY(!processAlive(cli));
        QVERIFY(test::waitFor(
            [&] {
                for (qint64 pid : workers)
                    if (processAlive(pid)) return false;
                return true;
            },
            15000));
    }
};

QTEST_MAIN(LauncherTest)
#include "launcher_test.moc"
