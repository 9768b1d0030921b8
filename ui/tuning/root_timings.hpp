#pragma once
// One read of the open root's timings, shared: the Autotune view, Compare devices and the Overview's
// autotuned ops all show the same set (collect_timings over the root, with mark_used_by), and the
// inspector joins an entry's kernels to it (the window passes result()'s set, InspectRequest::timings),
// so the root is walked for timings once per open and one TimingSet is kept, not one per view or click. Whichever
// view asks first (request()) starts the read on the "root-timings" channel; every asker gets the
// same set through loaded(). The Overview's autotuned ops (opsRead) come as soon as the files are
// read, before the "used by graph" marks (every graph entry read: minutes at a million files), which
// only the Autotune view shows. A new root (setRoot) forgets the last set; reload() reads again (a
// tuning session or a re-tune wrote new timings).
#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>
#include <vector>

#include "bundle/temp_root.hpp"
#include "overview/overview.hpp"
#include "timings/timing_model.hpp"
#include "ui/tuning/op_list_texts.hpp"
#include "ui/tuning/timing_devices.hpp"

namespace kiln {
class Gate;
}

namespace kiln::ui {

class CacheTree;
class JobRunner;

struct RootTimingsResult {
    QString root;
    std::shared_ptr<const timings::TimingSet> set;  // never null: empty when the read failed
    QString error;                                  // why it failed
    // What the views show of the set, made in the job: on the UI thread, thousands of ops (a
    // million-file cache) held it for tens of ms.
    OpListTexts texts;                  // the Autotune view's op list and "used by" texts
    std::vector<TimingDevice> devices;  // Compare devices: the set's, unnamed ops by the root's name
    std::shared_ptr<const timings::Comparison> comparison;  // of those devices (two or more), else null
};

struct RootTimingsOps {
    QString root;
    overview::OpsSection ops;  // overview::ops_section of the set (op_index: its ops)
};

class RootTimings : public QObject {
    Q_OBJECT
public:
    static constexpr const char* kChannel = "root-timings";
    explicit RootTimings(JobRunner* jobs, QObject* parent = nullptr);

    // The window's new root and what frontend::open_cache opened of it (read through its descriptor);
    // nothing is read until asked. `scanComing`: the window is scanning it; the first read waits for
    // that scan (setScan) and finds the timing files among its files instead of walking the root again.
    void setRoot(const QString& root, std::shared_ptr<const bundle::RootOrBlob> opened, bool scanComing = false);
    // The window's scan of the root (null: it failed, the read walks the root). A read asked for before
    // it starts now. `marksMayStart`, when given, opens when the window's first screen is in (the
    // Overview complete, the window's read of the graph entries over): the "used by graph" marks (another
    // read of up to 20,000 entries) wait for it rather than compete with them.
    void setScan(std::shared_ptr<const CacheTree> tree, std::shared_ptr<const Gate> marksMayStart = nullptr);
    QString root() const { return root_; }
    // Reads the root once: starts the read unless it runs or ran; opsRead() and loaded() follow
    // (queued when known already).
    void request();
    void reload();  // reads again, whatever is known
    bool isLoading() const { return running_; }
    std::shared_ptr<const RootTimingsResult> result() const { return result_; }
    // Reads started since this object was made (tests: the views share one).
    int readsStarted() const { return reads_; }

signals:
    void loaded(std::shared_ptr<const kiln::ui::RootTimingsResult> result);
    void opsRead(std::shared_ptr<const kiln::ui::RootTimingsOps> ops);

private:
    void start();
    void launch();

    JobRunner* jobs_;
    QString root_;
    std::weak_ptr<const bundle::RootOrBlob> opened_;  // the window owns it (a blob's temporary root goes with it)
    std::shared_ptr<const RootTimingsResult> result_;
    std::shared_ptr<const RootTimingsOps> ops_;
    quint64 generation_ = 0;  // a result for an older root or read is dropped
    bool running_ = false;
    int reads_ = 0;
    // The window's scan, while the first read may take its files: until then a read waits for it.
    enum class Scan : std::uint8_t { none, coming, kept } scan_ = Scan::none;
    std::shared_ptr<const CacheTree> tree_;
    std::shared_ptr<const Gate> marksGate_;  // the first read's marks wait for it to open
    bool waiting_ = false;                   // a read asked for before the scan
};

}  // namespace kiln::ui
