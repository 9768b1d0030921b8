#pragma once
// Runs `kiln-cli retune ROOT --root-fd N --json` for the Autotune view's "Re-tune on this machine…"
// (the child inherits the root the window opened as descriptor N and reads beneath it), without
// widgets: the cache's own Triton and cuBLAS choices re-measured on this machine's GPUs by one
// kiln-worker per GPU (core/retune). Progress per device comes from the run's session logs
// (<root>/kiln/autotune/retune-<op>-<i>-<stamp>-<pid>.jsonl, flushed line by line), read beneath the
// root the window opened (retune::read_run_progress, through its descriptor: issue 44); the result is
// the report's JSON (retune::retune_report_from_json), read on the JobRunner with everything the
// dialog shows of it (RetuneResults): parsing a report and deciding its hand-back read files, never
// on the UI thread. Cancel stops kiln-cli and its workers.
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

#include <memory>
#include <optional>

#include "bundle/temp_root.hpp"
#include "handback/handback_plan.hpp"
#include "retune/recorded_compare.hpp"
#include "retune/retune_report.hpp"
#include "retune/run_progress.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/runs/cli_process.hpp"

namespace kiln::ui {

struct RetuneRequest {
    QString cacheRoot;  // the ROOT kiln-cli names in its report (it reads beneath `opened`'s descriptor)
    // `cacheRoot` as the window opened it (frontend::open_cache): the run's session logs are followed
    // and its report saved beneath it. Required.
    std::shared_ptr<const bundle::RootOrBlob> opened;
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

// Everything the Re-tune dialog shows of one report, made off the UI thread. Each part is a core
// value, the same `kiln-cli` prints: how Kiln's times compare with the cache's recorded ones
// (retune::agreement_with_recorded), what a hand-back would hand to torch (handback::plan_handback,
// the decision `kiln-cli handback ROOT --from RUN` makes), or why nothing was measured.
struct RetuneResults {
    QString error;  // not a report: nothing else is set
    retune::RetuneReport report;
    RetuneProgress progress;  // counted from the report
    retune::RecordedAgreement agreement;
    std::optional<Error> nothingMeasured;  // retune::nothing_measured
    handback::HandbackPlan handback;       // empty when nothing was measured
    QString handbackError;                 // the report could not be read as a hand-back's run
    QString runFile;                       // the saved run the hand-back buttons read ("": none)
};
// `json`: kiln-cli retune --json's output; `root`: the cache root a hand-back would write, as the
// window opened it (its recorded files read beneath its descriptor; OpenedRoot{}: none).
RetuneResults readRetuneResults(const QByteArray& json, const inductor::OpenedRoot& root);

class RetuneController : public QObject {
    Q_OBJECT
public:
    // `jobs` reads the reports (it outlives the controller).
    explicit RetuneController(JobRunner* jobs, QObject* parent = nullptr);
    ~RetuneController() override;

    QString start(const RetuneRequest& request);  // error message, empty when started
    void cancel();
    bool isRunning() const { return process_.isRunning(); }
    const RetuneProgress& progress() const { return progress_; }
    const retune::RetuneReport& report() const { return results_.report; }
    const RetuneResults& results() const { return results_; }
    // A report saved from `kiln-cli retune --json` (e.g. on a GPU machine), read on the job runner
    // against the cache root the window opened (`opened`; null: none); reportLoaded says when (error
    // text or empty). Refused (false, nothing started) while a run is in progress.
    bool loadReportFile(const QString& path, std::shared_ptr<const bundle::RootOrBlob> opened);
    QStringList sessionLogs() const { return logs_; }

signals:
    void progressChanged();
    void reportLoaded(const QString& error);
    // A run ended; results() hold its report (saved as results().runFile when anything was measured).
    void finished(bool ok, const QString& message);

private:
    void poll();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void takeResults(RetuneResults r);

    static inline const QString kFollowChannel = QStringLiteral("retune-progress");
    JobRunner follower_;        // reads the live session logs (its own: the window's runner shows no
                                // busy flicker every 250 ms); declared before process_, so it outlives it
    QPointer<JobRunner> jobs_;  // the window's; it may go before this
    QString channel_;
    CliProcess process_;
    QTimer poll_;
    RetuneRequest request_;
    qint64 pid_ = 0;
    QStringList logs_;
    RetuneProgress progress_;
    RetuneResults results_;
};

}  // namespace kiln::ui
