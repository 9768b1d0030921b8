#pragma once
// The "Overview" workspace tab, the first thing the app shows: what the open cache holds and what to
// look at first (overview_html.hpp). It shows at once what is known: while the window's scan runs,
// the files and bytes found so far; when the scan ends, the statistics of that same scan (the browser's
// CacheTree: no second walk); then each slower section as it is computed off the UI thread from that
// scan (overview::*_section, one job at a time on the "overview" channel, each a value delivered on
// the UI thread); the health count is the window's shared check (ScanHealth), which the Health view
// shows too, asked for as soon as the scan is in (it runs beside the sections). The graph entries
// section comes from the main window, which reads the entries once for it, the browser's readable
// names and the Compile times view; the portability summary and the eviction plan wait for what that
// read saw of the entries (setEntryNeeds) instead of decoding every entry again.
#include <QTimer>
#include <QUrl>
#include <QWidget>

#include <functional>
#include <memory>

#include "overview/overview.hpp"

class QTextBrowser;

namespace kiln::ui {

class JobRunner;
class CacheTree;
class ScanHealth;
struct ScanCounters;

class OverviewPanel : public QWidget {
    Q_OBJECT
public:
    // `health`: the window's shared check of its scan (the health count is its report's); null: the
    // panel runs its own count (overview::health_section).
    // `requestOps`: asks the window's one read of the root's timings for its ops (the autotuned ops
    // are then its ops, as the Autotune view shows them), which come back through setOps; the window
    // joins the two (the Overview knows no other feature's views). Null: the panel reads them itself
    // (overview::ops_section(root)).
    explicit OverviewPanel(JobRunner* jobs, QWidget* parent = nullptr, ScanHealth* health = nullptr,
                           std::function<void()> requestOps = {});

    // A root being scanned: shows the scan's progress from `counters` (sampled every 100 ms).
    // `blob`: the Mega-Cache blob `root` unpacks (its commands and TORCH_TRACE dirs are the blob's).
    void load(const QString& root, std::shared_ptr<const ScanCounters> counters = nullptr, const QString& blob = {});
    // The scan of the root: its statistics now, the other sections in the background.
    void setTree(std::shared_ptr<const CacheTree> tree);
    // The graph entries section (read by the main window with the browser's names); an error string
    // when the entries could not be listed.
    void setEntries(overview::EntriesSection entries);
    // What the window's one read of `tree`'s graph entries saw of them, for the eviction plan and the
    // portability summary (null: that read failed; the section reads the entries itself).
    void setEntryNeeds(std::shared_ptr<const CacheTree> tree, std::shared_ptr<const inductor::EntryNeeds> needs,
                       std::shared_ptr<const portability::SeenKeys> keys);
    // The autotuned ops of `root` from the window's read of its timings (each read: a re-read after a
    // tuning session too); ignored for another root or before its scan is in.
    void setOps(const QString& root, const overview::OpsSection& ops);
    void showNoCache(const QString& reason);
    void showError(const QString& error);

    // Every section in; null until then.
    std::shared_ptr<const overview::Overview> overview() const { return complete_ ? current_ : nullptr; }
    // What is shown now (null while scanning).
    std::shared_ptr<const overview::Overview> partial() const { return current_; }
    QString error() const { return error_; }
    QTextBrowser* view() const { return view_; }
    bool isLoading() const { return !root_.isEmpty() && !complete_ && error_.isEmpty(); }

signals:
    void computed();  // every section in
    void sectionShown(
        const QString& what);  // "scanning", "stats", "startup", "entries", "ops", "portability", "evict", "health"
    void linkActivated(const QUrl& url);

protected:
    void changeEvent(QEvent* e) override;    // palette changes: re-render in the new colours
    void showEvent(QShowEvent* e) override;  // what came while another tab was shown

private:
    void render();
    void runSection(int index);  // the slower sections, one after another
    void update(const std::function<void(overview::Overview&)>& edit, const QString& what);
    void finishIfDone();

    JobRunner* jobs_;
    ScanHealth* health_;
    std::function<void()> requestOps_;
    QTextBrowser* view_;
    QTimer progressTick_;
    QString root_;
    QString blob_;
    QString error_;
    QString noCache_;
    std::shared_ptr<const ScanCounters> counters_;
    std::shared_ptr<const CacheTree> tree_;
    std::shared_ptr<const CacheTree> needsTree_;  // the tree whose entries needs_ is of
    std::shared_ptr<const inductor::EntryNeeds> needs_;
    std::shared_ptr<const portability::SeenKeys> keys_;
    std::shared_ptr<overview::PortabilityPart> portabilityPart_;  // its files' step, for its entries' step
    int waitingSection_ = -1;  // the section whose turn came before needs_ and keys_ for tree_
    // Edited in place while the panel alone holds it; copied first when a caller of overview() or
    // partial() still does (what they were given never changes under them).
    std::shared_ptr<overview::Overview> current_;
    overview::SectionsPending pending_;
    bool complete_ = false;
    bool stale_ = false;  // the view's HTML is older than the value (rendered when shown)
};

}  // namespace kiln::ui
