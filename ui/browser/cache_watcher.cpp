#include "ui/browser/cache_watcher.hpp"

#include <QElapsedTimer>
#include <QSet>

#include <algorithm>

namespace kiln::ui {

CacheWatcher::CacheWatcher(QObject* parent) : QObject(parent) {
    timer_.setSingleShot(true);
    timer_.setInterval(500);
    connect(&watcher_, &QFileSystemWatcher::directoryChanged, this, &CacheWatcher::poke);
    connect(&watcher_, &QFileSystemWatcher::fileChanged, this, &CacheWatcher::poke);
    connect(&timer_, &QTimer::timeout, this, [this] {
        if (enabled_) emit changed();
    });
    adder_.setInterval(0);
    connect(&adder_, &QTimer::timeout, this, &CacheWatcher::addSome);
}

void CacheWatcher::addSome() {
    // Each watch stats its dir: under memory pressure (dentries reclaimed) 256 of them took 30 ms of
    // the UI thread, so a turn adds small slices until a few milliseconds have gone.
    constexpr qsizetype kSlice = 32;
    constexpr qint64 kTurnNs = 4'000'000;
    QElapsedTimer clock;
    clock.start();
    while (next_ < fresh_.size() && clock.nsecsElapsed() < kTurnNs) {
        const qsizetype n = std::min(kSlice, fresh_.size() - next_);
        watcher_.addPaths(fresh_.mid(next_, n));
        next_ += n;
    }
    if (next_ >= fresh_.size()) {
        adder_.stop();
        fresh_.clear();
        next_ = 0;
    }
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
    fresh_.clear();
    next_ = 0;
    adder_.stop();
}

void CacheWatcher::watch(const CacheTree& tree) {
    const QStringList& ordered = tree.watchDirs;
    const QSet<QString> dirs(ordered.begin(), ordered.end());
    const QStringList current = watcher_.directories();
    QStringList gone;
    for (const auto& d : current)
        if (!dirs.contains(d)) gone.push_back(d);
    if (!gone.isEmpty()) watcher_.removePaths(gone);
    fresh_.clear();
    next_ = 0;
    const QSet<QString> have(current.begin(), current.end());
    for (const auto& d : ordered)
        if (!have.contains(d)) fresh_.push_back(d);
    addSome();  // the shallow dirs at once, the rest on later turns
    if (next_ < fresh_.size()) adder_.start();
}

}  // namespace kiln::ui
