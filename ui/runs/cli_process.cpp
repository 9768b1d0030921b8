#include "ui/runs/cli_process.hpp"

#include <QCoreApplication>
#include <QFileInfo>

#include <functional>

#include <fcntl.h>

namespace kiln::ui {

CliProcess::CliProcess(QObject* parent) : QObject(parent) {
    killTimer_.setSingleShot(true);
    killTimer_.setInterval(3000);
    connect(&killTimer_, &QTimer::timeout, this, [this] {
        if (isRunning()) process_.kill();
    });
    connect(&process_, &QProcess::readyReadStandardOutput, this,
            [this] { out_ += QString::fromUtf8(process_.readAllStandardOutput()); });
    connect(&process_, &QProcess::readyReadStandardError, this,
            [this] { err_ += QString::fromUtf8(process_.readAllStandardError()); });
    connect(&process_, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        killTimer_.stop();
        out_ += QString::fromUtf8(process_.readAllStandardOutput());
        err_ += QString::fromUtf8(process_.readAllStandardError());
        emit finished(exitCode, status);
    });
}

CliProcess::~CliProcess() {
    if (!isRunning()) return;
    process_.disconnect(this);  // no signals into a half-destroyed owner
    process_.terminate();
    if (!process_.waitForFinished(3000)) process_.kill();
    process_.waitForFinished(3000);
}

QString CliProcess::defaultCliPath() {
    const QString env = qEnvironmentVariable("KILN_CLI");
    if (!env.isEmpty()) return env;
    return QCoreApplication::applicationDirPath() + QStringLiteral("/kiln-cli");
}

QString CliProcess::start(const QString& cli, const QStringList& args, int inheritFd) {
    if (isRunning()) return tr("kiln-cli is already running");
    const QString path = cli.isEmpty() ? defaultCliPath() : cli;
    if (!QFileInfo(path).isExecutable()) return tr("kiln-cli not found at %1").arg(path);
    out_.clear();
    err_.clear();
    cancelled_ = false;
    // Cleared in the child only, after the fork: another thread's child never inherits it.
    process_.setChildProcessModifier(inheritFd < 0 ? std::function<void()>() : [inheritFd] {
        const int flags = ::fcntl(inheritFd, F_GETFD);
        if (flags >= 0) ::fcntl(inheritFd, F_SETFD, flags & ~FD_CLOEXEC);
    });
    process_.start(path, args);
    if (!process_.waitForStarted(10000)) return tr("cannot start %1: %2").arg(path, process_.errorString());
    return {};
}

void CliProcess::cancel() {
    if (!isRunning()) return;
    cancelled_ = true;
    process_.terminate();
    killTimer_.start();
}

QString CliProcess::failureReason(int exitCode, QProcess::ExitStatus status) const {
    const QString last = err_.trimmed().split(QLatin1Char('\n')).last();
    if (status != QProcess::NormalExit)
        return tr("kiln-cli crashed") + (last.isEmpty() ? QString() : QStringLiteral(": ") + last);
    return last.isEmpty() ? tr("kiln-cli exited with status %1").arg(exitCode) : last;
}

}  // namespace kiln::ui
