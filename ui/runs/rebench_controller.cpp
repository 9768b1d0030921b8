#include "ui/runs/rebench_controller.hpp"

#include <algorithm>

#include <QFileInfo>

#include "tuning/rebench.hpp"

namespace kiln::ui {

QString parseRebenchJson(const QByteArray& json, QVector<RebenchTimes>& into) {
    // kiln-cli rebench --json: the core's RebenchReport schema (tuning/rebench.hpp).
    auto parsed = nlohmann::json::parse(json.constData(), json.constData() + json.size(), nullptr, false);
    if (parsed.is_discarded()) return QObject::tr("kiln-cli rebench printed no JSON");
    auto report = tuning::rebench_report_from_json(parsed);
    if (!report) return QString::fromStdString(report.error().str());
    mergeRebenchReport(*report, into);
    return {};
}

void mergeRebenchReport(const tuning::RebenchReport& report, QVector<RebenchTimes>& into) {
    for (const auto& d : report.devices) {
        const QString name = QString::fromStdString(d.device);
        auto it = std::find_if(into.begin(), into.end(), [&](const RebenchTimes& r) { return r.device == name; });
        if (it == into.end()) {
            into.push_back(RebenchTimes{.device = name});
            it = into.end() - 1;
        }
        it->status = QString::fromUtf8(worker::bench_status_name(d.status));
        it->ok = d.ok();
        it->reason = QString::fromStdString(d.reason);
        if (d.timings.contains("graph_ms")) it->graphMs = d.ms;
        for (const auto& k : d.timings.value("kernels", nlohmann::json::array())) {
            const QString kname = QString::fromStdString(k.value("name", ""));
            it->kernelMs.insert(kname, k.value("ms", 0.0));
            if (k.contains("key")) it->kernelKey.insert(kname, QString::fromStdString(k.value("key", "")));
        }
    }
}

double storedTimeFor(const RebenchTimes& d, const QString& kernel, const timings::StoredKernelTimes& stored) {
    return timings::stored_time_for(stored, kernel.toStdString(), d.kernelKey.value(kernel).toStdString())
        .value_or(-1.0);
}

QString RebenchController::loadReport(const tuning::RebenchReport& report) {
    if (isRunning()) return tr("a benchmark is running");
    if (report.devices.empty()) return tr("no devices in these results");
    mergeRebenchReport(report, results_);
    return {};
}

RebenchController::RebenchController(QObject* parent) : QObject(parent) {
    connect(&process_, &CliProcess::finished, this, &RebenchController::onFinished);
}

QString RebenchController::start(const QString& modulePath, const QString& devices, const QString& cliPath) {
    if (isRunning()) return tr("a benchmark is already running");
    if (!QFileInfo(modulePath).isFile()) return tr("no such module: %1").arg(modulePath);
    cli_ = cliPath;
    module_ = modulePath;
    devices_ = devices;
    results_.clear();
    return runStage(false);
}

QString RebenchController::runStage(bool kernels) {
    kernels_ = kernels;
    QStringList args{QStringLiteral("rebench"), module_, QStringLiteral("--json")};
    if (!devices_.isEmpty()) args << QStringLiteral("--devices") << devices_;
    if (kernels) args << QStringLiteral("-k");
    emit stageChanged(kernels ? tr("timing each kernel") : tr("timing the graph"));
    return process_.start(cli_, args);
}

void RebenchController::cancel() { process_.cancel(); }

void RebenchController::onFinished(int exitCode, QProcess::ExitStatus status) {
    if (process_.wasCancelled()) {
        emit finished(false, tr("cancelled"));
        return;
    }
    const QString parseError = parseRebenchJson(process_.output().toUtf8(), results_);
    if (status != QProcess::NormalExit || !parseError.isEmpty()) {
        emit finished(
            false, process_.errorOutput().trimmed().isEmpty() ? parseError : process_.failureReason(exitCode, status));
        return;
    }
    // Exit 1 with JSON: some device failed; its reason is in results(). Go on to the kernels.
    if (!kernels_) {
        if (QString err = runStage(true); !err.isEmpty()) emit finished(false, err);
        return;
    }
    emit finished(exitCode == 0, exitCode == 0 ? tr("done") : tr("some devices failed; see their reasons"));
}

}  // namespace kiln::ui
