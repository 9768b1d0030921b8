#include "ui/health/health_panel.hpp"

#include "ui/browser/cache_tree.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

#include "frontend/open_cache.hpp"
#include "health/check.hpp"
#include "health/quarantine.hpp"
#include "inductor/stats.hpp"
#include "ui/health/scan_health.hpp"
#include "ui/jobs/job_runner.hpp"

namespace kiln::ui {

namespace {

constexpr int kExpandedRows = 1000;  // a kind's problems shown open up to this many

struct HealthOutcome {
    std::shared_ptr<const health::HealthReport> report;
    QStringList quarantines;
    QString message;  // what quarantine / restore did, or the error
};

QStringList quarantineIdsOf(const inductor::OpenedRoot& root) {
    QStringList out;
    for (const auto& m : health::list_quarantines(root)) out << QString::fromStdString(m.id);
    return out;
}

}  // namespace

HealthPanel::HealthPanel(JobRunner* jobs, QWidget* parent)
    : QWidget(parent),
      jobs_(jobs),
      model_(new HealthModel(this)),
      view_(new QTreeView(this)),
      summary_(new QLabel(this)),
      why_(new QLabel(this)),
      check_(new QPushButton(tr("Check"), this)),
      quarantine_(new QPushButton(tr("Quarantine problems"), this)),
      ids_(new QComboBox(this)),
      restore_(new QPushButton(tr("Restore"), this)) {
    auto* bar = new QHBoxLayout;
    bar->addWidget(summary_, 1);
    bar->addWidget(check_);
    bar->addWidget(quarantine_);
    bar->addWidget(ids_);
    bar->addWidget(restore_);
    quarantine_->setToolTip(tr("Move the problem groups into <root>/.kiln-quarantine/<id>/ (Restore undoes it)"));
    view_->setModel(model_);
    view_->setUniformRowHeights(true);
    view_->header()->setSectionResizeMode(HealthModel::ColWhat, QHeaderView::Interactive);
    view_->header()->resizeSection(HealthModel::ColWhat, 520);
    why_->setWordWrap(true);
    why_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(view_, 1);
    layout->addWidget(why_);
    connect(check_, &QPushButton::clicked, this, &HealthPanel::check);
    connect(quarantine_, &QPushButton::clicked, this, &HealthPanel::quarantine);
    connect(restore_, &QPushButton::clicked, this, &HealthPanel::restoreSelected);
    connect(view_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& i) { onCurrentChanged(i); });
    // Enter or double-click: show the file in the browser (arrow keys only move through the list).
    connect(view_, &QTreeView::activated, this, [this](const QModelIndex& i) {
        const QString path = i.data(HealthModel::PathRole).toString();
        if (!path.isEmpty()) emit entrySelected(path);
    });
    summary_->setText(tr("No cache open"));
    refreshButtons();
}

void HealthPanel::setRoot(const QString& root) {
    wantsShared_ = false;
    root_ = root;
    tree_.reset();
    model_->clear();
    check();
}

void HealthPanel::setRootQuietly(const QString& root) {
    wantsShared_ = false;
    root_ = root;
    tree_.reset();
    model_->clear();
    summary_->setText(tr("Checking %1 ...").arg(root_));
}

void HealthPanel::checkTree(std::shared_ptr<const CacheTree> tree) {
    if (!tree || tree->root != root_) return;
    if (shared_) {
        wantsShared_ = true;
        busy_ = true;
        refreshButtons();
        summary_->setText(tr("Checking %1 ...").arg(root_));
        if (isVisible()) shared_->request();  // else when shown, or when the Overview's count asks first
        return;
    }
    tree_ = std::move(tree);
    run(Action::check);  // this once from the scan; the Check button walks the root afresh
    tree_.reset();
}

void HealthPanel::check() { run(Action::check); }
void HealthPanel::quarantine() { run(Action::quarantine); }
void HealthPanel::restore(const QString& id) { run(Action::restore, id); }
void HealthPanel::restoreSelected() {
    if (ids_->currentIndex() >= 0) restore(ids_->currentText());
}

void HealthPanel::run(Action action, const QString& id) {
    if (root_.isEmpty()) return;
    wantsShared_ = false;  // this view's own run: its report, not the scan's shared one
    busy_ = true;
    refreshButtons();
    summary_->setText(action == Action::check ? tr("Checking %1 ...").arg(root_) : tr("Working ..."));
    const std::string root = root_.toStdString();
    const std::string qid = id.toStdString();
    jobs_->start(
        QStringLiteral("health"), tr("Checking cache health"),
        [root, qid, action, tree = action == Action::check ? tree_ : nullptr](JobControl& ctl) {
            HealthOutcome out;
            // Opened as kiln-cli opens it (frontend::open_cache), here off the UI thread; every step
            // below goes through this one descriptor.
            auto cache = frontend::open_cache(std::filesystem::path(root), action == Action::check
                                                                               ? frontend::CacheAccess::read
                                                                               : frontend::CacheAccess::write);
            if (!cache) {
                out.message = QString::fromStdString(cache.error().str());
                return out;
            }
            const inductor::OpenedRoot opened = cache->opened();
            health::CheckOptions options;
            options.default_target = true;  // looked up while the walk runs
            options.cancel = ctl.cancelFlag();
            if (action == Action::quarantine) {
                auto run = health::quarantine_problems(opened, options, false);
                if (!run) out.message = QString::fromStdString(run.error().str());
                else {
                    out.message = run->moved.manifest.id.empty()
                                      ? tr("Nothing quarantined: %1 group(s) could not be moved (locked or changed)")
                                            .arg(run->moved.skipped.size())
                                      : tr("Quarantined %1 group(s) as %2")
                                            .arg(run->moved.manifest.groups.size())
                                            .arg(QString::fromStdString(run->moved.manifest.id));
                    out.report = std::make_shared<const health::HealthReport>(std::move(run->after));
                }
            } else if (action == Action::restore) {
                auto r = health::restore_quarantine(opened, qid);
                out.message =
                    r ? tr("Restored %1 item(s) of %2").arg(r->restored.size()).arg(QString::fromStdString(qid))
                      : QString::fromStdString(r.error().str());
            }
            if (!out.report) {
                auto checked = tree ? health::check_scan(tree->scan(), options) : health::check_cache(opened, options);
                if (checked) out.report = std::make_shared<const health::HealthReport>(std::move(*checked));
                else if (out.message.isEmpty()) out.message = QString::fromStdString(checked.error().str());
            }
            out.quarantines = quarantineIdsOf(opened);
            return out;
        },
        [this, action](HealthOutcome out) {
            busy_ = false;
            message_ = out.message;
            quarantines_ = out.quarantines;
            ids_->clear();
            ids_->addItems(quarantines_);
            if (!quarantines_.isEmpty()) ids_->setCurrentIndex(static_cast<int>(quarantines_.size()) - 1);
            showOutcome(std::move(out.report));
            if (action != Action::check) emit cacheChanged();
            emit updated(model_->problemCount());
        });
}

void HealthPanel::showOutcome(std::shared_ptr<const health::HealthReport> report) {
    if (report) {
        const auto& r = *report;
        QString text = r.problems.empty() ? tr("Healthy: no problems in %1 files").arg(r.files)
                                          : tr("%1 problem(s) in %2 files").arg(r.problems.size()).arg(r.files);
        if (!r.stale.empty()) text += tr("; %1 stale entries (not counted)").arg(r.stale.size());
        if (r.unused_bytes())
            text += tr("; %1 of unused autotune candidates")
                        .arg(QString::fromStdString(inductor::format_bytes(r.unused_bytes())));
        if (!message_.isEmpty()) text = message_ + QStringLiteral(" \u2014 ") + text;
        summary_->setText(text);
        model_->setReport(std::move(report));
        // Kinds with few problems open; a kind with hundreds of thousands (a broken million-file cache)
        // stays closed until the user opens it: the view lays out a row item per shown row.
        for (int k = 0; k < model_->rowCount(); ++k)
            if (model_->rowCount(model_->index(k, 0)) <= kExpandedRows) view_->expand(model_->index(k, 0));
    } else {
        summary_->setText(message_);
        model_->clear();
    }
    refreshButtons();
}

void HealthPanel::setScanHealth(ScanHealth* shared) {
    shared_ = shared;
    connect(shared_, &ScanHealth::checked, this, [this](const std::shared_ptr<const ScanHealthResult>& r) {
        if (wantsShared_ && r && r->root == root_) showShared(r);
    });
}

void HealthPanel::showShared(const std::shared_ptr<const ScanHealthResult>& result) {
    wantsShared_ = false;
    busy_ = false;
    message_ = result->report ? QString() : result->error;
    quarantines_ = result->quarantines;
    ids_->clear();
    ids_->addItems(quarantines_);
    if (!quarantines_.isEmpty()) ids_->setCurrentIndex(static_cast<int>(quarantines_.size()) - 1);
    showOutcome(result->report);
    emit updated(model_->problemCount());
}

void HealthPanel::showEvent(QShowEvent* e) {
    if (wantsShared_ && shared_) shared_->request();
    QWidget::showEvent(e);
}

void HealthPanel::refreshButtons() {
    check_->setEnabled(!busy_ && !root_.isEmpty());
    quarantine_->setEnabled(!busy_ && model_->problemCount() > 0);
    restore_->setEnabled(!busy_ && ids_->count() > 0);
    ids_->setEnabled(!busy_ && ids_->count() > 0);
}

void HealthPanel::onCurrentChanged(const QModelIndex& index) {
    const QString path = index.data(HealthModel::PathRole).toString();
    QString text = index.data(HealthModel::WhyRole).toString();
    if (!path.isEmpty()) text += tr("\n%1 (Enter: show it in the browser)").arg(path);
    why_->setText(text);
}

}  // namespace kiln::ui
