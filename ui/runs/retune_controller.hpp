#pragma once
// Runs `kiln-cli retune ROOT --json` for the Autotune view's "Re-tune on this machine…", without
// widgets: the cache's own Triton and cuBLAS choices re-measured on this machine's GPUs by one
// kiln-worker per GPU (core/retune). Progress per device comes from the run's session logs
// (<root>/kiln/autotune/retune-<op>-<i>-<stamp>-<pid>.jsonl, flushed line by line); the result is
// the report's JSON (retune::retune_report_from_json). Cancel stops kiln-cli and its workers.
#include <QMap>
#include <QObject>
#include <QString>
#include <QTimer>

#include "retune/retune_report.hpp"
#include "ui/runs/cli_process.hpp"

namespace kiln::ui {

struct RetuneRequest {
    QString cacheRoot;
    QString op;  // "" every op; else a substring of the op or its inputs key
    QString devices = QStringLiteral("all");
    bool eachDevice = false;  // every choice on every device (to compare the GPUs)
    QString cliPath;          // "": CliProcess::defaultCliPath()
};

struct RetuneProgress {
    QMap<QString, int> perDevice;  // "cuda:0" -> choices measured there
    int measured = 0;
    int planned = 0;  // choices of the ops started so far (session_start's "choices")
    int failed = 0;   // measurements whose status is not ok
};
// Counts the measurements of a run's session logs (texts; a torn last line is skipped).
RetuneProgress readRetuneProgress(const QStringList& logTexts);

class RetuneController : public QObject {
    Q_OBJECT
public:
    explicit RetuneController(QObject* parent = nullptr);
    ~RetuneController() override;

    QString start(const RetuneRequest& request);  // error message, empty when started
    void cancel();
    bool isRunning() const { return process_.isRunning(); }
    const RetuneProgress& progress() const { return progress_; }
    const retune::RetuneReport& report() const { return report_; }
    // A report saved from `kiln-cli retune --json` (e.g. on a GPU machine); error text or empty.
    QString loadReport(const QByteArray& json);
    QStringList sessionLogs() const { return logs_; }

signals:
    void progressChanged();
    void finished(bool ok, const QString& message);

private:
    void poll();
    void onFinished(int exitCode, QProcess::ExitStatus status);

    CliProcess process_;
    QTimer poll_;
    RetuneRequest request_;
    qint64 pid_ = 0;
    QStringList logs_;
    RetuneProgress progress_;
    retune::RetuneReport report_;
};

}  // namespace kiln::ui
