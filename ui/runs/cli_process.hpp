#pragma once
// kiln-cli as a child process, for the GUI's runs (tuning sessions, re-benchmarks): the work runs
// in the core through the CLI, so a kernel that crashes takes down that process, not the GUI. Its
// stdout and stderr are collected; cancel() sends SIGTERM (its workers see their channel close and
// exit) and SIGKILL 3 s later; a process still running when its owner goes away is stopped.
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

namespace kiln::ui {

class CliProcess : public QObject {
    Q_OBJECT
public:
    explicit CliProcess(QObject* parent = nullptr);
    ~CliProcess() override;

    // $KILN_CLI, else kiln-cli beside the application.
    static QString defaultCliPath();

    // Starts `cli` (empty: defaultCliPath()) with `args`; an error message, empty when started.
    // `inheritFd` (>= 0): a descriptor the child inherits under the same number (the opened cache
    // root the GUI hands to `kiln-cli retune --root-fd`).
    QString start(const QString& cli, const QStringList& args, int inheritFd = -1);
    void cancel();
    bool isRunning() const { return process_.state() != QProcess::NotRunning; }
    bool wasCancelled() const { return cancelled_; }
    qint64 processId() const { return process_.processId(); }
    const QString& output() const { return out_; }  // stdout so far
    const QString& errorOutput() const { return err_; }
    // Why a run that did not succeed ended: stderr's last line (kiln-cli's error), else how it ended.
    QString failureReason(int exitCode, QProcess::ExitStatus status) const;

signals:
    void finished(int exitCode, QProcess::ExitStatus status);

private:
    QProcess process_;
    QTimer killTimer_;
    QString out_, err_;
    bool cancelled_ = false;
};

}  // namespace kiln::ui
