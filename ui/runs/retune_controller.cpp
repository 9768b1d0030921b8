#include "ui/runs/retune_controller.hpp"

#include <QPointer>

#include <nlohmann/json.hpp>

#include "handback/retune_run.hpp"
#include "retune/run.hpp"
#include "ui/jobs/job_runner.hpp"
#include "util/regular_file.hpp"

namespace kiln::ui {

RetuneResults readRetuneResults(const QByteArray& json, const inductor::OpenedRoot& root) {
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
    r.handback = handback::plan_handback(std::move(run).value(), root);
    return r;
}

namespace {
// A finished run's report, beside its session logs: what the hand-back buttons read. "" when it
// could not be written.
QString saveRetuneRunFile(const QByteArray& json, const bundle::RootOrBlob& opened) {
    auto saved = retune::save_run_report(opened.opened(), std::string_view(json.constData(), json.size()));
    return saved.ok() ? QString::fromStdString(saved->string()) : QString();
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
    if (!request.opened || !request.opened->root_fd.valid()) return tr("no cache is open");
    if (jobs_) jobs_->cancel(channel_);  // a report still being read is not this run's
    request_ = request;
    progress_ = {};
    results_ = {};
    logs_.clear();
    // The child reads the root the window opened, inherited as a descriptor (issue 44): a root renamed
    // or swapped since the open is never the one it reads; cacheRoot names it in the report.
    const int rootFd = request.opened->root_fd.get();
    QStringList args{QStringLiteral("retune"), request.cacheRoot, QStringLiteral("--root-fd"), QString::number(rootFd),
                     QStringLiteral("--json")};
    if (!request.op.isEmpty()) args << QStringLiteral("--op") << request.op;
    if (!request.devices.isEmpty()) args << QStringLiteral("--devices") << request.devices;
    if (request.eachDevice) args << QStringLiteral("--each-device");
    QString err = process_.start(request.cliPath, args, rootFd);
    if (!err.isEmpty()) return err;
    pid_ = process_.processId();
    poll_.start();
    return {};
}

void RetuneController::cancel() { process_.cancel(); }

void RetuneController::poll() {
    // This run's session logs, counted by core on the follower's thread; one read at a time.
    if (follower_.isRunning(kFollowChannel)) return;
    QPointer<RetuneController> self(this);
    follower_.start(
        kFollowChannel, tr("Following the re-tune"),
        [opened = request_.opened, pid = pid_](JobControl&) {
            return retune::read_run_progress(opened->opened(), pid);  // held open while it reads
        },
        [self](Result<retune::RunProgress> r) {
            // After the run the report's own count stands (takeResults); a late read is dropped.
            if (!self || !r.ok() || !self->isRunning()) return;
            self->logs_.clear();
            for (const auto& l : r->logs) self->logs_ << QString::fromStdString(l.string());
            RetuneProgress p;
            p.planned = r->planned;
            p.measured = r->measured;
            p.failed = r->failed;
            for (const auto& [device, n] : r->per_device) p.perDevice[QString::fromStdString(device)] = n;
            if (p.measured != self->progress_.measured || p.planned != self->progress_.planned) {
                self->progress_ = p;
                emit self->progressChanged();
            }
        });
}

void RetuneController::takeResults(RetuneResults r) {
    results_ = std::move(r);
    if (results_.error.isEmpty()) {
        progress_ = results_.progress;
        emit progressChanged();
    }
}

bool RetuneController::loadReportFile(const QString& path, std::shared_ptr<const bundle::RootOrBlob> opened) {
    if (isRunning() || !jobs_) return false;
    QPointer<RetuneController> self(this);
    jobs_->start(
        channel_, tr("Reading a re-tune report"),
        [path, opened = std::move(opened)](JobControl&) {  // held open while it reads
            // Read the one way core reads an input (a regular file, bounded: a FIFO never blocks).
            auto text = read_regular_file(path.toStdString(), 256ull << 20);
            if (!text.ok()) {
                RetuneResults r;
                r.error = tr("cannot read it: %1").arg(QString::fromStdString(text.error().message));
                return r;
            }
            RetuneResults r =
                readRetuneResults(QByteArray::fromStdString(*text), opened ? opened->opened() : inductor::OpenedRoot{});
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
    follower_.cancel(kFollowChannel);
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
        [out, opened = request_.opened](JobControl&) {
            RetuneResults r = readRetuneResults(out, opened->opened());
            if (r.error.isEmpty() && !r.nothingMeasured) r.runFile = saveRetuneRunFile(out, *opened);
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
