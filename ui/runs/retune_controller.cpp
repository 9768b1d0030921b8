#include "ui/runs/retune_controller.hpp"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QPointer>

#include <nlohmann/json.hpp>

#include "handback/retune_run.hpp"
#include "retune/run.hpp"
#include "ui/jobs/job_runner.hpp"

namespace kiln::ui {

RetuneProgress readRetuneProgress(const QStringList& logTexts) {
    RetuneProgress p;
    for (const QString& text : logTexts) {
        const QStringList lines = text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        for (const QString& line : lines) {
            const QByteArray utf8 = line.toUtf8();
            auto j = nlohmann::json::parse(utf8.constData(), utf8.constData() + utf8.size(), nullptr, false);
            if (j.is_discarded() || !j.is_object()) continue;  // a torn last line
            const std::string event = j.value("event", "");
            if (event == "session_start") {
                p.planned += j.value("choices", 0);
            } else if (event == "measurement") {
                ++p.measured;
                ++p.perDevice[QString::fromStdString(j.value("device", ""))];
                if (j.value("status", "") != "ok") ++p.failed;
            }
        }
    }
    return p;
}

RetuneResults readRetuneResults(const QByteArray& json, const QString& root) {
    RetuneResults r;
    auto parsed = nlohmann::json::parse(json.constData(), json.constData() + json.size(), nullptr, false);
    if (parsed.is_discarded()) {
        r.error = QObject::tr("not JSON: expected the output of kiln-cli retune --json");
        return r;
    }
    auto report = retune::retune_report_from_json(parsed);
    if (!report) {
        r.error = QString::fromStdString(report.error().str());
        return r;
    }
    r.report = std::move(report).value();
    for (const auto& op : r.report.ops)
        for (const auto& c : op.choices) {
            ++r.progress.planned;
            for (const auto& m : c.measured) {
                ++r.progress.measured;
                ++r.progress.perDevice[QStringLiteral("cuda:%1").arg(m.device)];
                if (m.status != "ok") ++r.progress.failed;
            }
        }
    r.agreement = retune::agreement_with_recorded(r.report);
    r.nothingMeasured = retune::nothing_measured(r.report);
    if (r.nothingMeasured) return r;
    // The hand-back reads the same bytes `kiln-cli handback --from` reads (a run's are saved as they came).
    auto ordered = nlohmann::ordered_json::parse(json.constData(), json.constData() + json.size(), nullptr, false);
    auto run = handback::run_from_json(ordered, "kiln-cli retune --json");
    if (!run) {
        r.handbackError = QString::fromStdString(run.error().str());
        return r;
    }
    r.handback = handback::plan_handback(std::move(run).value(), root.toStdString());
    return r;
}

namespace {
// A finished run's report, beside its session logs: what the hand-back buttons read. "" when it
// could not be written.
QString saveRetuneRunFile(const QByteArray& json, const QString& root) {
    const QString dir = root + QStringLiteral("/kiln/retune");
    const QString path = dir + QStringLiteral("/run-") +
                         QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss")) +
                         QStringLiteral(".json");
    QFile f(path);
    if (QDir().mkpath(dir) && f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(json) == json.size() &&
        f.flush())
        return path;
    return {};
}
}  // namespace

RetuneController::RetuneController(JobRunner* jobs, QObject* parent)
    : QObject(parent), jobs_(jobs), channel_(QStringLiteral("retune-report-%1").arg(reinterpret_cast<quintptr>(this))) {
    connect(&process_, &CliProcess::finished, this, &RetuneController::onFinished);
    poll_.setInterval(250);
    connect(&poll_, &QTimer::timeout, this, &RetuneController::poll);
}

RetuneController::~RetuneController() {
    if (jobs_) jobs_->cancel(channel_);
    if (isRunning()) process_.cancel();
}

QString RetuneController::start(const RetuneRequest& request) {
    if (isRunning()) return tr("a re-tune is already running");
    if (!QDir(request.cacheRoot).exists()) return tr("no such cache root: %1").arg(request.cacheRoot);
    if (jobs_) jobs_->cancel(channel_);  // a report still being read is not this run's
    request_ = request;
    progress_ = {};
    results_ = {};
    logs_.clear();
    QStringList args{QStringLiteral("retune"), request.cacheRoot, QStringLiteral("--json")};
    if (!request.op.isEmpty()) args << QStringLiteral("--op") << request.op;
    if (!request.devices.isEmpty()) args << QStringLiteral("--devices") << request.devices;
    if (request.eachDevice) args << QStringLiteral("--each-device");
    QString err = process_.start(request.cliPath, args);
    if (!err.isEmpty()) return err;
    pid_ = process_.processId();
    poll_.start();
    return {};
}

void RetuneController::cancel() { process_.cancel(); }

void RetuneController::poll() {
    // This run's logs: retune-<op>-<i>-<stamp>-<pid>.jsonl under <root>/kiln/autotune (<op> escaped:
    // util/path_component; the real name is inside each log).
    QDir dir(request_.cacheRoot + QStringLiteral("/kiln/autotune"));
    const QStringList names = dir.entryList({QStringLiteral("retune-*-%1.jsonl").arg(pid_)}, QDir::Files, QDir::Name);
    QStringList texts;
    logs_.clear();
    for (const QString& n : names) {
        QFile f(dir.filePath(n));
        if (!f.open(QIODevice::ReadOnly)) continue;
        logs_ << f.fileName();
        texts << QString::fromUtf8(f.readAll());
    }
    RetuneProgress p = readRetuneProgress(texts);
    if (p.measured != progress_.measured || p.planned != progress_.planned) {
        progress_ = p;
        emit progressChanged();
    }
}

void RetuneController::takeResults(RetuneResults r) {
    results_ = std::move(r);
    if (results_.error.isEmpty()) {
        progress_ = results_.progress;
        emit progressChanged();
    }
}

bool RetuneController::loadReportFile(const QString& path, const QString& root) {
    if (isRunning() || !jobs_) return false;
    QPointer<RetuneController> self(this);
    jobs_->start(
        channel_, tr("Reading a re-tune report"),
        [path, root](JobControl&) {
            QFile f(path);
            if (!f.open(QIODevice::ReadOnly)) {
                RetuneResults r;
                r.error = tr("cannot read %1: %2").arg(path, f.errorString());
                return r;
            }
            RetuneResults r = readRetuneResults(f.readAll(), root);
            if (r.error.isEmpty() && !r.nothingMeasured) r.runFile = path;
            return r;
        },
        [self, path](RetuneResults r) {
            if (!self) return;
            const QString error = r.error.isEmpty() ? QString() : tr("%1: %2").arg(path, r.error);
            if (error.isEmpty()) self->takeResults(std::move(r));
            emit self->reportLoaded(error);
        });
    return true;
}

void RetuneController::onFinished(int exitCode, QProcess::ExitStatus status) {
    poll_.stop();
    poll();
    if (process_.wasCancelled()) {
        emit finished(false, tr("cancelled"));
        return;
    }
    // Exit 1 with a report: some choices failed (their reasons are in the report). The report is
    // read, its hand-back decided and the run saved on the job runner.
    const QByteArray out = process_.output().toUtf8();
    const bool crashed = status != QProcess::NormalExit;
    if (!jobs_) return;  // the window is going
    const QString failure =
        crashed || !process_.errorOutput().trimmed().isEmpty() ? process_.failureReason(exitCode, status) : QString();
    QPointer<RetuneController> self(this);
    jobs_->start(
        channel_, tr("Reading the re-tune's report"),
        [out, root = request_.cacheRoot](JobControl&) {
            RetuneResults r = readRetuneResults(out, root);
            if (r.error.isEmpty() && !r.nothingMeasured) r.runFile = saveRetuneRunFile(out, root);
            return r;
        },
        [self, failure, crashed, exitCode](RetuneResults r) {
            if (!self) return;
            const QString error = r.error;
            self->takeResults(std::move(r));
            if (crashed || !error.isEmpty()) {
                emit self->finished(false, failure.isEmpty() ? error : failure);
                return;
            }
            emit self->finished(true, exitCode == 0 ? tr("done") : tr("done; some choices failed (see their reasons)"));
        });
}

}  // namespace kiln::ui
