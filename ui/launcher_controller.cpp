#include "launcher_controller.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include "tuning/session_log.hpp"
#include "tuning/tune_report.hpp"
#include "timings/session_log_source.hpp"

namespace kiln::ui {

LauncherController::LauncherController(QObject* parent) : QObject(parent) {
    poll_.setInterval(150);
    connect(&poll_, &QTimer::timeout, this, &LauncherController::poll);
    killTimer_.setSingleShot(true);
    killTimer_.setInterval(3000);
    connect(&killTimer_, &QTimer::timeout, this, [this] {
        if (isRunning()) process_->kill();
    });
}

LauncherController::~LauncherController() {
    if (isRunning()) {
        process_->terminate();
        if (!process_->waitForFinished(3000)) process_->kill();
        process_->waitForFinished(3000);
    }
}

QString LauncherController::defaultCliPath() {
    const QString env = qEnvironmentVariable("KILN_CLI");
    if (!env.isEmpty()) return env;
    return QCoreApplication::applicationDirPath() + QStringLiteral("/kiln-cli");
}

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
        spec[QStringLiteral("template_file")] = base.absoluteFilePath(spec.value(QStringLiteral("template_file")).toString());
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
    QString op, error;
    const QString spec = deriveSpec(req, work_->path(), &op, &error);
    if (spec.isEmpty()) return error;
    const QString cli = req.cliPath.isEmpty() ? defaultCliPath() : req.cliPath;
    if (!QFileInfo(cli).isExecutable()) return tr("kiln-cli not found at %1").arg(cli);
    if (req.cacheRoot.isEmpty()) return tr("no cache root to persist the results in");

    sessionLog_ = QString::fromStdString(
        tuning::SessionLog::default_path(req.cacheRoot.toStdString(), op.toStdString()).string());
    QStringList args{QStringLiteral("autotune"), spec, QStringLiteral("--cache-dir"), req.cacheRoot,
                     QStringLiteral("--session-log"), sessionLog_, QStringLiteral("--json")};
    if (!req.devices.isEmpty()) args << QStringLiteral("--devices") << req.devices;
    if (req.inProcess) args << QStringLiteral("--in-process");

    delete process_;
    process_ = new QProcess(this);
    connect(process_, &QProcess::finished, this, &LauncherController::onFinished);
    connect(process_, &QProcess::readyReadStandardError, this,
            [this] { stderr_ += QString::fromUtf8(process_->readAllStandardError()); });
    connect(process_, &QProcess::readyReadStandardOutput, this,
            [this] { stdout_ += QString::fromUtf8(process_->readAllStandardOutput()); });
    timings_ = std::make_shared<timings::TimingSet>();
    planned_ = measured_ = 0;
    logSize_ = -1;
    cancelled_ = false;
    stdout_.clear();
    stderr_.clear();
    process_->start(cli, args);
    if (!process_->waitForStarted(10000)) return tr("cannot start %1: %2").arg(cli, process_->errorString());
    poll_.start();
    return {};
}

void LauncherController::cancel() {
    if (!isRunning()) return;
    cancelled_ = true;
    process_->terminate();  // SIGTERM; its workers see their channel close and exit
    killTimer_.start();
}

void LauncherController::poll() {
    const QFileInfo info(sessionLog_);
    if (!info.exists() || info.size() == logSize_) return;
    logSize_ = info.size();
    auto log = timings::read_session_log(sessionLog_.toStdString());
    if (!log.ok()) return;  // raced with the first write; next tick
    auto set = std::make_shared<timings::TimingSet>();
    set->sources.push_back({sessionLog_.toStdString(), timings::SourceKind::session_log, log->device,
                            static_cast<int>(log->ops.size())});
    set->ops = std::move(log->ops);
    planned_ = log->planned_choices;
    measured_ = log->measured;
    timings_ = std::move(set);
    emit updated();
    emit progress(measured_, planned_);
}

void LauncherController::onFinished(int exitCode, QProcess::ExitStatus status) {
    poll_.stop();
    killTimer_.stop();
    stdout_ += QString::fromUtf8(process_->readAllStandardOutput());
    stderr_ += QString::fromUtf8(process_->readAllStandardError());
    poll();
    if (cancelled_) {
        emit finished(false, tr("cancelled"));
        return;
    }
    if (status != QProcess::NormalExit || exitCode != 0) {
        QString why = stderr_.trimmed().split(QLatin1Char('\n')).last();
        if (status != QProcess::NormalExit) why = tr("kiln-cli crashed") + (why.isEmpty() ? QString() : QStringLiteral(": ") + why);
        emit finished(false, why.isEmpty() ? tr("kiln-cli exited with status %1").arg(exitCode) : why);
        return;
    }
    // kiln-cli autotune --json: the core's TuneReport schema (autotune/tune_report.hpp).
    auto report = tuning::tune_report_from_json(nlohmann::json::parse(stdout_.toStdString(), nullptr, false));
    if (!report) {
        emit finished(false, QString::fromStdString(report.error().str()));
        return;
    }
    emit finished(true, tr("best %1; results in %2").arg(QString::fromStdString(report->best), sessionLog_));
}

}  // namespace kiln::ui
