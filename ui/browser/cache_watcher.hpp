#pragma once
// Notices when the cache changes on disk. QFileSystemWatcher reports every directory change; a
// compile writes dozens of files in a burst, so changes restart a single-shot timer and one
// `changed()` follows once the burst has been quiet for `coalesceMs`.
#include <QFileSystemWatcher>
#include <QObject>
#include <QThread>
#include <QTimer>

#include <atomic>

#include "ui/browser/cache_tree.hpp"

namespace kiln::ui {

class CacheWatcher : public QObject {
    Q_OBJECT
public:
    explicit CacheWatcher(QObject* parent = nullptr);
    ~CacheWatcher() override;
    void setCoalesceMs(int ms) { timer_.setInterval(ms); }
    void setEnabled(bool on);
    // Watches tree.watchDirs (computed with the tree, off the UI thread) from a thread of its own:
    // the kernel walks a directory's cached children when a watch is added (fsnotify), 20-37 ms for
    // 32 of a million-file cache's large dirs, the UI thread's longest stalls (issue 44). A newer
    // watch() or clear() stops what an older one still had to add.
    void watch(const CacheTree& tree);
    void clear();
    qsizetype watchedCount() const { return watched_.load(); }
    bool adding() const { return adding_.load(); }

signals:
    void changed();

private:
    void poke();
    QThread thread_;
    QFileSystemWatcher* watcher_;  // lives on thread_ and is only used there
    QTimer timer_;
    std::atomic<quint64> generation_{0};  // the latest watch() or clear()
    std::atomic<qsizetype> watched_{0};
    std::atomic<bool> adding_{false};
    bool enabled_ = true;
};

}  // namespace kiln::ui
