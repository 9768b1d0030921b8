#include "app/root_resolver.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QObject>
#include <QProcessEnvironment>

#include <pwd.h>
#include <unistd.h>

namespace kiln::ui {

namespace {

QString loginName() {
    // torch uses getpass.getuser(): LOGNAME, USER, LNAME, USERNAME, then the password database.
    const auto env = QProcessEnvironment::systemEnvironment();
    for (const char* var : {"LOGNAME", "USER", "LNAME", "USERNAME"}) {
        const QString v = env.value(QString::fromLatin1(var));
        if (!v.isEmpty()) return v;
    }
    if (const passwd* pw = getpwuid(getuid())) return QString::fromLocal8Bit(pw->pw_name);
    return QStringLiteral("unknown");
}

bool isDir(const QString& p) { return !p.isEmpty() && QFileInfo(p).isDir(); }

}  // namespace

QString inductorDefaultRoot() {
    const auto env = QProcessEnvironment::systemEnvironment();
    const QString configured = env.value(QStringLiteral("TORCHINDUCTOR_CACHE_DIR"));
    if (!configured.isEmpty()) return QDir::cleanPath(configured);
    QString tmp = env.value(QStringLiteral("TMPDIR"));
    if (tmp.isEmpty()) tmp = QStringLiteral("/tmp");
    return QDir::cleanPath(tmp + QStringLiteral("/torchinductor_") + loginName());
}

QString sampleCacheRoot() {
    const QString installed =
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/kiln/sample-cache");
    if (isDir(installed)) return QDir::cleanPath(installed);
#ifdef KILN_SAMPLE_CACHE_SOURCE
    const QString inSource = QStringLiteral(KILN_SAMPLE_CACHE_SOURCE);
    if (isDir(inSource)) return QDir::cleanPath(inSource);
#endif
    return {};
}

RootChoice chooseStartupRoot(const QString& commandLineRoot) {
    if (!commandLineRoot.isEmpty())
        return {QDir::cleanPath(QFileInfo(commandLineRoot).absoluteFilePath()), false,
                QObject::tr("from the command line")};
    const QString def = inductorDefaultRoot();
    if (isDir(def)) return {def, false, QObject::tr("Inductor's default cache")};
    const QString sample = sampleCacheRoot();
    if (!sample.isEmpty())
        return {sample, true, QObject::tr("no cache at %1; showing the bundled sample").arg(def)};
    return {QString(), false, QObject::tr("no cache at %1 and no sample cache installed").arg(def)};
}

}  // namespace kiln::ui
