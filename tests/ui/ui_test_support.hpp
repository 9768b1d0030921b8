#pragma once
// Shared helpers of the Qt tests: fixture paths from the environment CTest sets, running the real
// kiln-cli, and waiting for the main window's background work.
#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QProcess>
#include <QString>
#include <QTest>
#include <QWidget>

#include <filesystem>
#include <memory>

#include "frontend/open_cache.hpp"

namespace kiln::ui::test {

inline QString fixtureDir() { return qEnvironmentVariable("KILN_FIXTURE_DIR"); }
inline QString h100Root() { return fixtureDir() + QStringLiteral("/h100/inductor"); }
inline QString twoEntriesRoot() { return fixtureDir() + QStringLiteral("/two/inductor"); }
inline QString h100h200Dir() { return fixtureDir() + QStringLiteral("/h100h200"); }  // inductor/, h200/ (trace, blob)
inline QString binaryDir() { return qEnvironmentVariable("KILN_BINARY_DIR"); }
inline QString sourceDir() { return qEnvironmentVariable("KILN_SOURCE_DIR"); }

// `root` opened as the window opens it (frontend::open_cache): what a view given the opened root takes.
inline std::shared_ptr<const bundle::RootOrBlob> openRoot(const QString& root) {
    auto opened = frontend::open_cache(std::filesystem::path(root.toStdString()));
    if (!opened) qFatal("%s", opened.error().str().c_str());
    return std::make_shared<const bundle::RootOrBlob>(std::move(opened).value());
}

// With KILN_SCREENSHOT_DIR set, saves `w` there as `name` (the README's screenshots).
inline void saveScreenshot(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("KILN_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    w->grab().save(dir + QLatin1Char('/') + name);
}

// Runs $KILN_CLI with `args`; returns its stdout (warns when it fails).
inline QString runCli(const QStringList& args) {
    QProcess p;
    p.start(qEnvironmentVariable("KILN_CLI"), args);
    if (!p.waitForFinished(120000)) qWarning("kiln-cli did not finish");
    const QByteArray out = p.readAllStandardOutput();
    if (p.exitCode() != 0)
        qWarning("kiln-cli %s failed: %s", qPrintable(args.join(' ')), p.readAllStandardError().constData());
    return QString::fromUtf8(out);
}

// Runs $KILN_CLI with `args`: stdout and the exit code (commands that answer "no" exit 1).
inline QByteArray runCliStatus(const QStringList& args, int* exitCode) {
    QProcess p;
    p.start(qEnvironmentVariable("KILN_CLI"), args);
    if (!p.waitForFinished(120000)) qWarning("kiln-cli did not finish");
    *exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    return p.readAllStandardOutput();
}

// Runs $KILN_CLI with `args`; returns stdout parsed as JSON (fails the test on error).
inline QJsonDocument runCliJson(const QStringList& args) { return QJsonDocument::fromJson(runCli(args).toUtf8()); }

// Spins the event loop until `done()` or the timeout; returns whether it became true.
template <class Pred>
bool waitFor(Pred done, int timeoutMs = 60000) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeoutMs) return false;
        QTest::qWait(5);
    }
    return true;
}

}  // namespace kiln::ui::test
