#pragma once
// One health check of the window's scan, shared: the Overview's health count and the Health view
// both ask for it (request()); whichever asks first runs health::check_scan on the "scan-health"
// channel, and every asker gets the same report, a value delivered through checked(). A new scan
// (setTree) forgets the last report; nothing runs until someone asks.
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

#include "health/health_report.hpp"
#include "health/seen_entries.hpp"

namespace kiln::ui {

class JobRunner;
class CacheTree;

struct ScanHealthResult {
    QString root;
    std::shared_ptr<const health::HealthReport> report;  // null when the check failed
    QString error;
    QStringList quarantines;  // the root's quarantine ids, oldest first (listed through the scan's descriptor)
};

class ScanHealth : public QObject {
    Q_OBJECT
public:
    static constexpr const char* kChannel = "scan-health";
    explicit ScanHealth(JobRunner* jobs, QObject* parent = nullptr);

    // The window's new scan; forgets the last report. `seen`: the graph entries as the window's one read
    // of them sees them (closed when that read ends): the check takes each entry's findings from there
    // instead of decoding it again, and checks the entries once that read is over.
    void setTree(std::shared_ptr<const CacheTree> tree, std::shared_ptr<health::SeenEntries> seen = nullptr);
    void clear();  // no scan (another root is being opened)
    // Checks the tree once: runs the check unless it runs or ran already; checked() follows (at
    // once, queued, when the report is known).
    void request();
    std::shared_ptr<const ScanHealthResult> result() const { return result_; }
    QString root() const;

signals:
    void checked(std::shared_ptr<const kiln::ui::ScanHealthResult> result);

private:
    JobRunner* jobs_;
    std::shared_ptr<const CacheTree> tree_;      // held until its check is done
    std::shared_ptr<health::SeenEntries> seen_;  // given to the check (which empties it), then let go
    std::shared_ptr<const ScanHealthResult> result_;
    quint64 generation_ = 0;  // a result of an older tree is dropped
    bool running_ = false;
};

}  // namespace kiln::ui
