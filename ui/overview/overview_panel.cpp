#include "ui/overview/overview_panel.hpp"

#include <QEvent>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <utility>

#include "portability/seen_keys.hpp"
#include "trace/compile_timeline.hpp"
#include "ui/browser/cache_tree.hpp"
#include "ui/browser/scan_job.hpp"
#include "ui/health/scan_health.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/jobs/release_memory.hpp"
#include "ui/overview/overview_html.hpp"

namespace kiln::ui {

namespace {

// The sections after the statistics, cheapest first; each a value computed from the scan.
struct SectionValue {
    QString root;
    std::function<void(overview::Overview&, overview::SectionsPending&)> apply;
    QString what;
    std::shared_ptr<overview::PortabilityPart> portability;  // the files' step, for the entries' step
};

// The order the sections run in. Portability in two steps: its files (Triton kernel dirs, .best_config,
// timing caches) beside the window's read of the graph entries, the entries once that read is in
// (setEntryNeeds), and eviction after it for the same reason.
enum OverviewSection {
    kStartupSection,
    kOpsSection,
    kPortabilityFilesSection,
    kPortabilitySection,
    kEvictSection,
    kHealthSection,
    kSections
};

struct SectionInputs {
    const inductor::EntryNeeds* needs = nullptr;
    const portability::SeenKeys* keys = nullptr;
    std::shared_ptr<overview::PortabilityPart> portability;
};

SectionValue computeSection(int index, const CacheTree& tree, const QString& blob, const SectionInputs& in,
                            JobControl& ctl) {
    const inductor::ScanResult& scan = tree.scan();
    SectionValue v{tree.root, nullptr, {}};
    switch (index) {
        case kStartupSection: {
            std::vector<std::string> traces;  // the TORCH_TRACE dirs beside the root or blob (a directory listing)
            for (const auto& d : trace::find_trace_dirs(blob.isEmpty() ? scan.root : blob.toStdString()))
                traces.push_back(d.string());
            auto startup = overview::startup_section(traces);  // the biggest avoidable compile cost
            v.what = QStringLiteral("startup");
            v.apply = [traces, startup](overview::Overview& o, overview::SectionsPending&) {
                o.trace_dirs = traces;
                o.startup = startup;
            };
            break;
        }
        case kOpsSection: {
            auto s = std::make_shared<overview::OpsSection>(overview::ops_section(scan.opened_root()));
            v.what = QStringLiteral("ops");
            v.apply = [s](overview::Overview& o, overview::SectionsPending& p) {
                overview::apply(o, std::move(*s));
                p.ops = false;
            };
            break;
        }
        case kPortabilityFilesSection: {
            overview::OverviewOptions opt;
            opt.cancel = ctl.cancelFlag();
            v.portability = std::make_shared<overview::PortabilityPart>(overview::portability_files(scan, opt));
            v.what = QStringLiteral("portability files");
            v.apply = [](overview::Overview&, overview::SectionsPending&) {};
            break;
        }
        case kPortabilitySection: {
            overview::OverviewOptions opt;
            opt.cancel = ctl.cancelFlag();
            opt.seen_keys = in.keys;
            auto g = in.portability ? overview::portability_graphs(*in.portability, scan, opt)
                                    : overview::portability_section(scan, opt);
            v.what = QStringLiteral("portability");
            v.apply = [g](overview::Overview& o, overview::SectionsPending& p) {
                o.portability = g;
                p.portability = false;
            };
            break;
        }
        case kEvictSection: {
            auto g = overview::evict_section(scan, in.needs);
            v.what = QStringLiteral("evict");
            v.apply = [g](overview::Overview& o, overview::SectionsPending& p) {
                o.evict = g;
                p.evict = false;
            };
            break;
        }
        case kHealthSection: {
            auto g = overview::health_section(scan, ctl.cancelFlag());
            v.what = QStringLiteral("health");
            v.apply = [g](overview::Overview& o, overview::SectionsPending& p) {
                o.health = g;
                p.health = false;
            };
            break;
        }
        default: break;
    }
    return v;
}

}  // namespace

OverviewPanel::OverviewPanel(JobRunner* jobs, QWidget* parent, ScanHealth* health, std::function<void()> requestOps)
    : QWidget(parent), jobs_(jobs), health_(health), requestOps_(std::move(requestOps)), view_(new QTextBrowser(this)) {
    setObjectName(QStringLiteral("overviewPanel"));
    view_->setOpenLinks(false);
    view_->setFrameShape(QFrame::NoFrame);
    view_->document()->setDocumentMargin(16);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view_);
    setFocusProxy(view_);
    connect(view_, &QTextBrowser::anchorClicked, this, &OverviewPanel::linkActivated);
    if (health_)
        connect(health_, &ScanHealth::checked, this, [this](const std::shared_ptr<const ScanHealthResult>& r) {
            if (!tree_ || !pending_.health || !r || r->root != root_) return;
            overview::HealthGlance g;  // what `kiln-cli check` counts: problems, stale entries apart
            if (r->report) g.problems = r->report->problems.size();
            else g.error = r->error.toStdString();
            update(
                [&](overview::Overview& o) {
                    o.health = g;
                    pending_.health = false;
                },
                QStringLiteral("health"));
        });
    progressTick_.setInterval(100);
    connect(&progressTick_, &QTimer::timeout, this, [this] {
        if (!tree_ && counters_) render();
    });
}

void OverviewPanel::load(const QString& root, std::shared_ptr<const ScanCounters> counters, const QString& blob) {
    jobs_->cancel(QStringLiteral("overview"));
    root_ = root;
    blob_ = blob;
    noCache_.clear();
    error_.clear();
    tree_.reset();
    needsTree_.reset();
    needs_.reset();
    keys_.reset();
    portabilityPart_.reset();
    waitingSection_ = -1;
    current_.reset();
    complete_ = false;
    counters_ = std::move(counters);
    if (counters_) progressTick_.start();
    render();
    emit sectionShown(QStringLiteral("scanning"));
}

void OverviewPanel::setTree(std::shared_ptr<const CacheTree> tree) {
    if (!tree || tree->root != root_) return;
    progressTick_.stop();
    jobs_->cancel(QStringLiteral("overview"));
    tree_ = std::move(tree);
    // The statistics are the tree's own (compute_stats of the scan): nothing to wait for.
    auto o = std::make_shared<overview::Overview>();
    o->root = tree_->scan().root;
    o->blob = blob_.toStdString();
    o->stats = tree_->stats;
    // Entries keep what the last scan knew until the new list comes (a rescan after a change).
    if (current_ && !pending_.entries) {
        o->entries = current_->entries;
        o->aot_entries = current_->aot_entries;
        o->entry_errors = current_->entry_errors;
    } else {
        pending_.entries = true;
    }
    pending_.ops = pending_.portability = pending_.evict = pending_.health = true;
    waitingSection_ = -1;
    portabilityPart_.reset();
    current_ = std::move(o);
    complete_ = false;
    render();
    emit sectionShown(QStringLiteral("stats"));
    // The shared check beside the other sections, not after them: it is the longest, and it reads
    // other files (its own workers) than the sections' one job at a time.
    if (health_) health_->request();
    runSection(kStartupSection);
}

void OverviewPanel::setOps(const QString& root, const overview::OpsSection& ops) {
    if (!tree_ || !current_ || root != root_) return;
    update(
        [&](overview::Overview& o) {
            overview::apply(o, ops);
            pending_.ops = false;
        },
        QStringLiteral("ops"));
}

void OverviewPanel::runSection(int index) {
    if (index >= kSections || !tree_) return;
    if (index == kHealthSection && health_) {  // the shared check: checked() fills the section
        if (pending_.health) health_->request();
        return;
    }
    if (index == kOpsSection && requestOps_) {  // the shared read: setOps fills the section
        requestOps_();
        runSection(index + 1);
        return;
    }
    std::shared_ptr<const inductor::EntryNeeds> needs;
    std::shared_ptr<const portability::SeenKeys> keys;
    std::shared_ptr<overview::PortabilityPart> part;
    if (index == kPortabilitySection || index == kEvictSection) {
        if (needsTree_ != tree_) {
            waitingSection_ = index;  // setEntryNeeds runs it when the read is in
            return;
        }
        waitingSection_ = -1;
        needs = needs_;
        keys = keys_;
    }
    if (index == kPortabilitySection) part = std::exchange(portabilityPart_, nullptr);
    if (index == kEvictSection) keys_.reset();  // portability has used them
    jobs_->start(
        QStringLiteral("overview"), tr("Overview of %1").arg(root_),
        [tree = tree_, index, blob = blob_, needs, keys, part](JobControl& ctl) {
            SectionValue v = computeSection(index, *tree, blob, SectionInputs{needs.get(), keys.get(), part}, ctl);
            releaseFreedMemory();  // the section's report is gone: its pages too, before the next section
            return v;
        },
        [this, index](SectionValue v) {
            if (v.root != root_ || !v.apply) return;
            if (v.portability) {  // a step of a section: nothing to show yet
                portabilityPart_ = std::move(v.portability);
                runSection(index + 1);
                return;
            }
            update([&](overview::Overview& o) { v.apply(o, pending_); }, v.what);
            runSection(index + 1);
        });
}

void OverviewPanel::setEntries(overview::EntriesSection entries) {
    if (!current_) return;
    auto shared = std::make_shared<overview::EntriesSection>(std::move(entries));
    update(
        [&](overview::Overview& o) {
            overview::apply(o, std::move(*shared));
            pending_.entries = false;
        },
        QStringLiteral("entries"));
}

void OverviewPanel::setEntryNeeds(std::shared_ptr<const CacheTree> tree,
                                  std::shared_ptr<const inductor::EntryNeeds> needs,
                                  std::shared_ptr<const portability::SeenKeys> keys) {
    if (!tree || tree->root != root_) return;
    needsTree_ = std::move(tree);
    needs_ = std::move(needs);
    keys_ = std::move(keys);
    if (waitingSection_ >= 0 && needsTree_ == tree_) runSection(waitingSection_);
}

void OverviewPanel::update(const std::function<void(overview::Overview&)>& edit, const QString& what) {
    // A section is a small part of the Overview (at a million files its entries are 23k rows): copying
    // the whole value for each section cost the UI thread more than the section.
    if (current_.use_count() > 1) current_ = std::make_shared<overview::Overview>(*current_);
    edit(*current_);
    render();
    emit sectionShown(what);
    finishIfDone();
}

void OverviewPanel::finishIfDone() {
    if (complete_ || pending_.any()) return;
    complete_ = true;
    emit computed();
}

void OverviewPanel::showNoCache(const QString& reason) {
    jobs_->cancel(QStringLiteral("overview"));
    progressTick_.stop();
    root_.clear();
    tree_.reset();
    current_.reset();
    noCache_ = reason;
    render();
}

void OverviewPanel::showError(const QString& error) {
    progressTick_.stop();
    error_ = error;
    render();
    emit computed();
}

void OverviewPanel::render() {
    // Behind another tab, the HTML waits until the tab shows: a section that arrives while the user
    // works in the browser costs the UI thread nothing.
    if (window()->isVisible() && !isVisible()) {
        stale_ = true;
        return;
    }
    stale_ = false;
    if (!error_.isEmpty()) {
        view_->setHtml(tr("<h3>Could not read %1</h3><p>%2</p>").arg(root_.toHtmlEscaped(), error_.toHtmlEscaped()));
    } else if (current_) {
        view_->setHtml(overviewHtml(*current_, palette(), pending_));
    } else if (!root_.isEmpty()) {
        const std::uint64_t files = counters_ ? counters_->files.load(std::memory_order_relaxed) : 0;
        const std::uint64_t bytes = counters_ ? counters_->bytes.load(std::memory_order_relaxed) : 0;
        view_->setHtml(scanningHtml(root_, files, bytes, palette()));
    } else if (!noCache_.isEmpty()) {
        view_->setHtml(noCacheHtml(noCache_, palette()));
    }
}

void OverviewPanel::showEvent(QShowEvent* e) {
    if (stale_) render();
    QWidget::showEvent(e);
}

void OverviewPanel::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange) render();
    QWidget::changeEvent(e);
}

}  // namespace kiln::ui
