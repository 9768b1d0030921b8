#pragma once
// Runs a tuning session for the launcher dialog, without widgets (testable offscreen). The
// session runs in `kiln-cli autotune` (the core engine: compile pool, one kiln-worker per device
// or in-process benchmarking, timing cache and session log written exactly as from the CLI), as a
// child process: a kernel that crashes the in-process benchmark takes down that process, not the
// GUI, and cancelling stops it and, through their closed channels, its workers. Progress and the
// live chart come from the session log, which the engine flushes line by line: a timer asks a
// job (timings::read_session_log_if_changed, off the UI thread) to re-read it when it has grown.
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <memory>

#include "timings/timing_model.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/runs/cli_process.hpp"

namespace kiln::ui {

struct LaunchRequest {
    QString specPath;        // a tuning spec (resources/examples/*.json or the user's)
    QString devices;         // "" (the spec's), "cpu", "0,1"
    bool inProcess = false;  // benchmark in kiln-cli itself instead of kiln-worker processes
    QString strategy;        // "" keeps the spec's; "exhaustive" or "random" (autotune --strategy)
    int budget = 0;          // random: evaluations (0: the spec's; autotune --budget)
    double seconds = 0;      // stop starting new evaluations after this long (0: the spec's; --seconds)
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
    bool isRunning() const { return process_.isRunning() || finishing_; }  // until finished()

    QString sessionLogPath() const { return sessionLog_; }
    // The session so far, re-read from its log on every change.
    std::shared_ptr<const timings::TimingSet> timings() const { return timings_; }
    int planned() const { return planned_; }
    int measured() const { return measured_; }
    QString output() const { return process_.output(); }  // kiln-cli's --json report once finished
    QString errorOutput() const { return process_.errorOutput(); }
    qint64 processId() const { return process_.processId(); }

    // kiln-cli's arguments for `request`: `autotune SPEC ... --strategy/--budget/--seconds` as set.
    static QStringList autotuneArguments(const LaunchRequest& request, const QString& sessionLog);
    // How many times the session log was read (each on the reader's pool, never on the UI thread).
    quint64 logReads() const { return reader_.startedCount(kLogChannel); }

signals:
    void progress(int done, int total);
    void updated();                                  // timings() changed
    void finished(bool ok, const QString& message);  // ok: the session ended and was persisted

private:
    static inline const QString kLogChannel = QStringLiteral("session-log");
    void poll();
    void readLog(bool last);  // last: whatever its size, then emit finished()
    void onFinished(int exitCode, QProcess::ExitStatus status);

    JobRunner reader_;  // before process_: alive while process_ goes (it sends no signal then)
    CliProcess process_;
    QTimer poll_;
    QString sessionLog_;
    qint64 logSize_ = -1;  // the size last read; -1: not read yet
    bool finishing_ = false;
    bool finishedOk_ = false;
    QString finishedMessage_;
    std::shared_ptr<const timings::TimingSet> timings_;
    int planned_ = 0;
    int measured_ = 0;
};

}  // namespace kiln::ui
