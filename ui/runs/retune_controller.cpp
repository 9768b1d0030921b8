#include "ui/runs/retune_controller.hpp"

#include <QDir>
#include <QFile>

#include <nlohmann/json.hpp>

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

RetuneController::RetuneController(QObject* parent) : QObject(parent) {
    connect(&process_, &CliProcess::finished, this, &RetuneController::onFinished);
    poll_.setInterval(250);
    connect(&poll_, &QTimer::timeout, this, &RetuneController::poll);
}

RetuneController::~RetuneController() {
    if (isRunning()) process_.cancel();
}

QString RetuneController::start(const RetuneRequest& request) {
    if (isRunning()) return tr("a re-tune is already running");
    if (!QDir(request.cacheRoot).exists()) return tr("no such cache root: %1").arg(request.cacheRoot);
    request_ = request;
    progress_ = {};
    report_ = {};
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

QString RetuneController::loadReport(const QByteArray& json) {
    if (isRunning()) return tr("a re-tune is running");
    auto parsed = nlohmann::json::parse(json.constData(), json.constData() + json.size(), nullptr, false);
    if (parsed.is_discarded()) return tr("not JSON: expected the output of kiln-cli retune --json");
    auto report = retune::retune_report_from_json(parsed);
    if (!report) return QString::fromStdString(report.error().str());
    report_ = std::move(*report);
    RetuneProgress p;
    for (const auto& op : report_.ops)
        for (const auto& c : op.choices) {
            ++p.planned;
            for (const auto& m : c.measured) {
                ++p.measured;
                ++p.perDevice[QStringLiteral("cuda:%1").arg(m.device)];
                if (m.status != "ok") ++p.failed;
            }
        }
    progress_ = p;
    emit progressChanged();
    return {};
}

void RetuneController::onFinished(int exitCode, QProcess::ExitStatus status) {
    poll_.stop();
    poll();
    if (process_.wasCancelled()) {
        emit finished(false, tr("cancelled"));
        return;
    }
    // Exit 1 with a report: some choices failed (their reasons are in the report).
    const QString err = loadReport(process_.output().toUtf8());
    if (status != QProcess::NormalExit || !err.isEmpty()) {
        emit finished(false,
                      process_.errorOutput().trimmed().isEmpty() ? err : process_.failureReason(exitCode, status));
        return;
    }
    emit finished(true, exitCode == 0 ? tr("done") : tr("done; some choices failed (see their reasons)"));
}

}  // namespace kiln::ui
