#include "ui/shell/root_resolver.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QObject>

#include "frontend/open_cache.hpp"

namespace kiln::ui {

namespace {
bool isDir(const QString& p) { return !p.isEmpty() && QFileInfo(p).isDir(); }
// The sample folder holds the cache root in inductor/ beside its README.
QString cacheIn(const QString& sample) {
    return isDir(sample + QStringLiteral("/inductor")) ? QDir::cleanPath(sample + QStringLiteral("/inductor"))
                                                       : QDir::cleanPath(sample);
}
}  // namespace

QString inductorDefaultRoot() { return QString::fromStdString(frontend::default_cache_root().string()); }

QString sampleCacheRoot() {
    const QString installed = QCoreApplication::applicationDirPath() + QStringLiteral("/../share/kiln/sample-cache");
    if (isDir(installed)) return cacheIn(installed);
#ifdef KILN_SAMPLE_CACHE_SOURCE
    const QString inSource = QStringLiteral(KILN_SAMPLE_CACHE_SOURCE);
    if (isDir(inSource)) return cacheIn(inSource);
#endif
    return {};
}

RootChoice chooseStartupRoot(const QString& commandLineRoot) {
    if (!commandLineRoot.isEmpty()) {
        const QString path = QDir::cleanPath(QFileInfo(commandLineRoot).absoluteFilePath());
        return {path, false, QObject::tr("from the command line")};
    }
    const QString def = inductorDefaultRoot();
    if (isDir(def)) return {def, false, QObject::tr("Inductor's default cache")};
    const QString sample = sampleCacheRoot();
    if (!sample.isEmpty()) return {sample, true, QObject::tr("no cache at %1; showing the bundled sample").arg(def)};
    return {QString(), false, QObject::tr("no cache at %1 and no sample cache installed").arg(def)};
}

OpenedCacheOutcome openCacheOffUiThread(const QString& path, bool isSample) {
    OpenedCacheOutcome out{path, isSample, nullptr, {}};
    auto opened = frontend::open_cache(std::filesystem::path(path.toStdString()));
    if (!opened) out.error = QString::fromStdString(opened.error().str());
    else out.opened = std::make_shared<const bundle::RootOrBlob>(std::move(opened).value());
    return out;
}

}  // namespace kiln::ui
