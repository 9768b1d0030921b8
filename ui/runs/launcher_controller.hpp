#pragma once
// Runs a tuning session for the launcher dialog, without widgets (testable offscreen). The
// session runs in `kiln-cli autotune` (the core engine: compile pool, one kiln-worker per device
// or in-process benchmarking, timing cache and session log written exactly as from the CLI), as a
// child process: a kernel that crashes the in-process benchmark takes down that process, not the
// GUI, and cancelling stops it and, through their closed channels, its workers. Progress and the
// live chart come from the session log, which the engine flushes line by line.
#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <QTimer>

#include <memory>

#include "runs/cli_process.hpp"
#include "timings/timing_model.hpp"
#include "util/temp_cleanup.hpp"

namespace kiln::ui {

struct LaunchRequest {
    QString specPath;        // a tuning spec (resources/examples/*.json or the user's)
    QString devices;         // "" (the spec's), "cpu", "0,1"
    bool inProcess = false;  // benchmark in kiln-cli itself instead of kiln-worker processes
    QString strategy;        // "" keeps the spec's; "exhaustive" or "random"
    int budget = 0;          // random: evaluations (0: all)
    double seconds = 0;      // stop starting new evaluations after this long (0: no limit)
    QString cacheRoot;       // where the timing cache and session log go
    QString cliPath;         // "": CliProcess::defaultCliPath()
};

class LauncherController : public QObject {
    Q_OBJECT
public:
    explicit LauncherController(QObject* parent = nullptr);
    ~LauncherController() override;  // a running session is stopped

    // Starts the session; returns an error message (bad spec, no kiln-cli), empty when started.
    QString start(const LaunchRequest& request);
    void cancel();
    bool isRunning() const { return process_.isRunning(); }

    QString sessionLogPath() const { return sessionLog_; }
    // The session so far, re-read from its log on every change.
    std::shared_ptr<const timings::TimingSet> timings() const { return timings_; }
    int planned() const { return planned_; }
    int measured() const { return measured_; }
    QString output() const { return process_.output(); }  // kiln-cli's --json report once finished
    QString errorOutput() const { return process_.errorOutput(); }
    qint64 processId() const { return process_.processId(); }

    // The spec with the launcher's strategy/budget applied, its template made absolute.
    static QString deriveSpec(const LaunchRequest& request, const QString& dir, QString* op, QString* error);

signals:
    void progress(int done, int total);
    void updated();                                  // timings() changed
    void finished(bool ok, const QString& message);  // ok: the session ended and was persisted

private:
    void poll();
    void onFinished(int exitCode, QProcess::ExitStatus status);

    CliProcess process_;
    QTimer poll_;
    std::unique_ptr<QTemporaryDir> work_;
    TempCleanup workCleanup_;  // removes work_ if a signal ends the GUI first
    QString sessionLog_;
    qint64 logSize_ = -1;
    std::shared_ptr<const timings::TimingSet> timings_;
    int planned_ = 0;
    int measured_ = 0;
};

}  // namespace kiln::ui
