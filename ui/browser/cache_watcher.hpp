#pragma once
// Notices when the cache changes on disk. QFileSystemWatcher reports every directory change; a
// compile writes dozens of files in a burst, so changes restart a single-shot timer and one
// `changed()` follows once the burst has been quiet for `coalesceMs`.
#include <QFileSystemWatcher>
#include <QObject>
#include <QTimer>

#include "ui/browser/cache_tree.hpp"

namespace kiln::ui {

class CacheWatcher : public QObject {
    Q_OBJECT
public:
    explicit CacheWatcher(QObject* parent = nullptr);
    void setCoalesceMs(int ms) { timer_.setInterval(ms); }
    void setEnabled(bool on);
    // Watches tree.watchDirs (computed with the tree, off the UI thread), a few milliseconds' worth per
    // turn of the event loop so a large cache's 4096 directories never block the UI thread.
    void watch(const CacheTree& tree);
    void clear();
    qsizetype watchedCount() const { return watcher_.directories().size(); }
    bool adding() const { return adder_.isActive(); }

signals:
    void changed();

private:
    void poke();
    void addSome();  // fresh_ from next_ on, a few ms per event-loop turn: each watch stats its dir
    QFileSystemWatcher watcher_;
    QTimer timer_;
    QTimer adder_;
    QStringList fresh_;
    qsizetype next_ = 0;  // fresh_ before it are watched
    bool enabled_ = true;
};

}  // namespace kiln::ui
