#include "browser/cache_watcher.hpp"

#include <QSet>

namespace kiln::ui {

CacheWatcher::CacheWatcher(QObject* parent) : QObject(parent) {
    timer_.setSingleShot(true);
    timer_.setInterval(500);
    connect(&watcher_, &QFileSystemWatcher::directoryChanged, this, &CacheWatcher::poke);
    connect(&watcher_, &QFileSystemWatcher::fileChanged, this, &CacheWatcher::poke);
    connect(&timer_, &QTimer::timeout, this, [this] {
        if (enabled_) emit changed();
    });
}

void CacheWatcher::setEnabled(bool on) {
    enabled_ = on;
    if (!on) timer_.stop();
}

void CacheWatcher::poke() {
    if (enabled_) timer_.start();  // restart: wait until the burst is over
}

void CacheWatcher::clear() {
    const QStringList dirs = watcher_.directories();
    if (!dirs.isEmpty()) watcher_.removePaths(dirs);
    timer_.stop();
}

void CacheWatcher::watch(const CacheTree& tree) {
    const QStringList& ordered = tree.watchDirs;
    const QSet<QString> dirs(ordered.begin(), ordered.end());
    const QStringList current = watcher_.directories();
    QStringList gone;
    for (const auto& d : current)
        if (!dirs.contains(d)) gone.push_back(d);
    if (!gone.isEmpty()) watcher_.removePaths(gone);
    QStringList fresh;
    const QSet<QString> have(current.begin(), current.end());
    for (const auto& d : ordered)
        if (!have.contains(d)) fresh.push_back(d);
    if (!fresh.isEmpty()) watcher_.addPaths(fresh);
}

}  // namespace kiln::ui
