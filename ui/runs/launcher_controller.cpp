#include "runs/launcher_controller.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include "timings/session_log_source.hpp"
#include "tuning/session_log.hpp"
#include "tuning/tune_report.hpp"

namespace kiln::ui {

LauncherController::LauncherController(QObject* parent) : QObject(parent) {
    poll_.setInterval(150);
    connect(&poll_, &QTimer::timeout, this, &LauncherController::poll);
    connect(&process_, &CliProcess::finished, this, &LauncherController::onFinished);
}

LauncherController::~LauncherController() = default;  // process_ stops a running session

QString LauncherController::deriveSpec(const LaunchRequest& req, const QString& dir, QString* op, QString* error) {
    QFile f(req.specPath);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = tr("cannot read the spec %1: %2").arg(req.specPath, f.errorString());
        return {};
    }
    QJsonParseError perr;
    QJsonObject spec = QJsonDocument::fromJson(f.readAll(), &perr).object();
    if (perr.error != QJsonParseError::NoError || spec.isEmpty()) {
        *error = tr("%1: not a JSON spec (%2)").arg(req.specPath, perr.errorString());
        return {};
    }
    *op = spec.value(QStringLiteral("op")).toString();
    // The derived copy lives elsewhere: its template must still point at the original's.
    const QDir base = QFileInfo(req.specPath).absoluteDir();
    if (spec.contains(QStringLiteral("template_file")))
        spec[QStringLiteral("template_file")] =
            base.absoluteFilePath(spec.value(QStringLiteral("template_file")).toString());
    if (!req.strategy.isEmpty()) {
        QJsonObject st{{QStringLiteral("kind"), req.strategy}};
        if (req.budget > 0) st[QStringLiteral("budget")] = req.budget;
        if (req.seconds > 0) st[QStringLiteral("seconds")] = req.seconds;
        spec[QStringLiteral("strategy")] = st;
    }
    const QString out = QDir(dir).filePath(QFileInfo(req.specPath).fileName());
    QFile o(out);
    if (!o.open(QIODevice::WriteOnly) || o.write(QJsonDocument(spec).toJson()) < 0) {
        *error = tr("cannot write %1: %2").arg(out, o.errorString());
        return {};
    }
    return out;
}

QString LauncherController::start(const LaunchRequest& req) {
    if (isRunning()) return tr("a session is already running");
    work_ = std::make_unique<QTemporaryDir>();
    if (!work_->isValid()) return tr("cannot create a temporary directory: %1").arg(work_->errorString());
    workCleanup_ = TempCleanup(work_->path().toStdString());
    QString op, error;
    const QString spec = deriveSpec(req, work_->path(), &op, &error);
    if (spec.isEmpty()) return error;
    if (req.cacheRoot.isEmpty()) return tr("no cache root to persist the results in");

    sessionLog_ = QString::fromStdString(
        tuning::SessionLog::default_path(req.cacheRoot.toStdString(), op.toStdString()).string());
    QStringList args{QStringLiteral("autotune"),      spec,        QStringLiteral("--cache-dir"), req.cacheRoot,
                     QStringLiteral("--session-log"), sessionLog_, QStringLiteral("--json")};
    if (!req.devices.isEmpty()) args << QStringLiteral("--devices") << req.devices;
    if (req.inProcess) args << QStringLiteral("--in-process");

    timings_ = std::make_shared<timings::TimingSet>();
    planned_ = measured_ = 0;
    logSize_ = -1;
    if (QString err = process_.start(req.cliPath, args); !err.isEmpty()) return err;
    poll_.start();
    return {};
}

void LauncherController::cancel() { process_.cancel(); }  // its workers see their channel close and exit

void LauncherController::poll() {
    const QFileInfo info(sessionLog_);
    if (!info.exists() || info.size() == logSize_) return;
    logSize_ = info.size();
    auto log = timings::read_session_log(sessionLog_.toStdString());
    if (!log.ok()) return;  // raced with the first write; next tick
    auto set = std::make_shared<timings::TimingSet>();
    set->sources.push_back(
        {sessionLog_.toStdString(), timings::SourceKind::session_log, log->device, static_cast<int>(log->ops.size())});
    set->ops = std::move(log->ops);
    planned_ = log->planned_choices;
    measured_ = log->measured;
    timings_ = std::move(set);
    emit updated();
    emit progress(measured_, planned_);
}

void LauncherController::onFinished(int exitCode, QProcess::ExitStatus status) {
    poll_.stop();
    poll();
    if (process_.wasCancelled()) {
        emit finished(false, tr("cancelled"));
        return;
    }
    if (status != QProcess::NormalExit || exitCode != 0) {
        emit finished(false, process_.failureReason(exitCode, status));
        return;
    }
    // kiln-cli autotune --json: the core's TuneReport schema (tuning/tune_report.hpp).
    auto report = tuning::tune_report_from_json(nlohmann::json::parse(process_.output().toStdString(), nullptr, false));
    if (!report) {
        emit finished(false, QString::fromStdString(report.error().str()));
        return;
    }
    emit finished(true, tr("best %1; results in %2").arg(QString::fromStdString(report->best), sessionLog_));
}

}  // namespace kiln::ui
