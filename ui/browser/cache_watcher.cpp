#include "ui/browser/cache_watcher.hpp"

#include <QSet>

namespace kiln::ui {

CacheWatcher::CacheWatcher(QObject* parent) : QObject(parent), watcher_(new QFileSystemWatcher) {
    timer_.setSingleShot(true);
    timer_.setInterval(500);
    watcher_->moveToThread(&thread_);
    // Queued: the watcher's signals come from its thread.
    connect(watcher_, &QFileSystemWatcher::directoryChanged, this, &CacheWatcher::poke);
    connect(watcher_, &QFileSystemWatcher::fileChanged, this, &CacheWatcher::poke);
    connect(&timer_, &QTimer::timeout, this, [this] {
        if (enabled_) emit changed();
    });
    thread_.setObjectName(QStringLiteral("kiln-watch"));
    thread_.start();
}

CacheWatcher::~CacheWatcher() {
    ++generation_;  // an add under way stops at its next directory
    thread_.quit();
    thread_.wait();
    delete watcher_;  // its thread is over: no event of it is left to deliver
}

void CacheWatcher::setEnabled(bool on) {
    enabled_ = on;
    if (!on) timer_.stop();
}

void CacheWatcher::poke() {
    if (enabled_) timer_.start();  // restart: wait until the burst is over
}

void CacheWatcher::clear() {
    const quint64 generation = ++generation_;
    timer_.stop();
    QMetaObject::invokeMethod(watcher_, [this, generation] {
        const QStringList dirs = watcher_->directories();
        if (!dirs.isEmpty()) watcher_->removePaths(dirs);
        watched_ = 0;
        if (generation_ == generation) adding_ = false;
    });
}

void CacheWatcher::watch(const CacheTree& tree) {
    const quint64 generation = ++generation_;
    adding_ = true;
    QMetaObject::invokeMethod(watcher_, [this, generation, ordered = tree.watchDirs] {
        const QSet<QString> dirs(ordered.begin(), ordered.end());
        const QStringList current = watcher_->directories();
        QStringList gone;
        for (const auto& d : current)
            if (!dirs.contains(d)) gone.push_back(d);
        const QStringList failed = gone.isEmpty() ? QStringList() : watcher_->removePaths(gone);
        const QSet<QString> have(current.begin(), current.end());
        // Counted as added, not listed again per directory (a list of every watched dir each time).
        qsizetype count = current.size() - gone.size() + failed.size();
        watched_ = count;
        // Shallow dirs first (the tree's order); one at a time so that a newer root stops this soon. A
        // directory gone meanwhile is skipped.
        for (const auto& d : ordered) {
            if (generation_ != generation) return;
            if (!have.contains(d) && watcher_->addPaths({d}).isEmpty()) watched_ = ++count;
        }
        if (generation_ == generation) adding_ = false;
    });
}

}  // namespace kiln::ui
