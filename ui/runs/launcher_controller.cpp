#include "ui/runs/launcher_controller.hpp"

#include <optional>

#include "timings/live_session_log.hpp"
#include "tuning/session_log.hpp"
#include "tuning/spec.hpp"
#include "tuning/tune_report.hpp"

namespace kiln::ui {

namespace {
// What a read of the session log brings back to the UI thread.
struct LogSnapshot {
    qint64 size = 0;
    std::shared_ptr<const timings::TimingSet> set;
    int planned = 0, measured = 0;
};
}  // namespace

LauncherController::LauncherController(QObject* parent) : QObject(parent) {
    poll_.setInterval(150);
    connect(&poll_, &QTimer::timeout, this, &LauncherController::poll);
    connect(&process_, &CliProcess::finished, this, &LauncherController::onFinished);
}

LauncherController::~LauncherController() = default;  // process_ stops a running session, then reader_ waits

QStringList LauncherController::autotuneArguments(const LaunchRequest& req, const QString& sessionLog) {
    QStringList args{QStringLiteral("autotune"),      req.specPath, QStringLiteral("--cache-dir"), req.cacheRoot,
                     QStringLiteral("--session-log"), sessionLog,   QStringLiteral("--json")};
    if (!req.devices.isEmpty()) args << QStringLiteral("--devices") << req.devices;
    if (req.inProcess) args << QStringLiteral("--in-process");
    if (!req.strategy.isEmpty()) args << QStringLiteral("--strategy") << req.strategy;
    // A budget counts a random search's evaluations; kiln-cli refuses one for an exhaustive search.
    if (req.strategy == QLatin1String("random") && req.budget > 0)
        args << QStringLiteral("--budget") << QString::number(req.budget);
    if (req.seconds > 0) args << QStringLiteral("--seconds") << QString::number(req.seconds, 'g', 10);
    return args;
}

QString LauncherController::start(const LaunchRequest& req) {
    if (isRunning()) return tr("a session is already running");
    if (req.cacheRoot.isEmpty()) return tr("no cache root to persist the results in");
    // The spec names the op, and so the session log's default place; a bad spec is refused here.
    auto spec = tuning::load_spec(req.specPath.toStdString());
    if (!spec.ok()) return QString::fromStdString(spec.error().str());
    sessionLog_ =
        QString::fromStdString(tuning::SessionLog::default_path(req.cacheRoot.toStdString(), spec->op).string());

    timings_ = std::make_shared<timings::TimingSet>();
    planned_ = measured_ = 0;
    logSize_ = -1;
    if (QString err = process_.start(req.cliPath, autotuneArguments(req, sessionLog_)); !err.isEmpty()) return err;
    poll_.start();
    return {};
}

void LauncherController::cancel() { process_.cancel(); }  // its workers see their channel close and exit

void LauncherController::poll() {
    if (!reader_.isRunning(kLogChannel)) readLog(false);  // else the last read is still going
}

void LauncherController::readLog(bool last) {
    const std::optional<std::uintmax_t> known =
        last || logSize_ < 0 ? std::nullopt : std::optional<std::uintmax_t>(static_cast<std::uintmax_t>(logSize_));
    reader_.start(
        kLogChannel, tr("Reading the session log"),
        [path = sessionLog_.toStdString(), known](JobControl&) -> std::optional<LogSnapshot> {
            auto read = timings::read_session_log_if_changed(path, known);
            if (!read.ok() || !*read) return std::nullopt;  // unchanged, not written yet, or raced: next tick
            auto& log = (*read)->timings;
            auto set = std::make_shared<timings::TimingSet>();
            set->sources.push_back(
                {path, timings::SourceKind::session_log, log.device, static_cast<int>(log.ops.size())});
            set->ops = std::move(log.ops);
            return LogSnapshot{static_cast<qint64>((*read)->size), std::move(set), log.planned_choices, log.measured};
        },
        [this, last](std::optional<LogSnapshot> s) {
            if (s) {
                logSize_ = s->size;
                timings_ = std::move(s->set);
                planned_ = s->planned;
                measured_ = s->measured;
                emit updated();
                emit progress(measured_, planned_);
            }
            if (!last) return;
            finishing_ = false;
            emit finished(finishedOk_, finishedMessage_);
        });
}

void LauncherController::onFinished(int exitCode, QProcess::ExitStatus status) {
    poll_.stop();
    finishing_ = true;
    finishedOk_ = false;
    if (process_.wasCancelled()) {
        finishedMessage_ = tr("cancelled");
    } else if (status != QProcess::NormalExit || exitCode != 0) {
        finishedMessage_ = process_.failureReason(exitCode, status);
    } else {
        // kiln-cli autotune --json: the core's TuneReport schema (tuning/tune_report.hpp).
        auto report =
            tuning::tune_report_from_json(nlohmann::json::parse(process_.output().toStdString(), nullptr, false));
        finishedOk_ = report.ok();
        finishedMessage_ = report ? tr("best %1; results in %2").arg(QString::fromStdString(report->best), sessionLog_)
                                  : QString::fromStdString(report.error().str());
    }
    readLog(true);  // the session as the engine left it, then finished()
}

}  // namespace kiln::ui
