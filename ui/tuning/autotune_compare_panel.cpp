#include "ui/tuning/autotune_compare_panel.hpp"

#include <QCheckBox>

#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>

#include "timings/collect.hpp"
#include "ui/charts/chart_export.hpp"
#include "ui/charts/compare_chart.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/tuning/autotune_compare_model.hpp"
#include "ui/tuning/root_timings.hpp"

namespace kiln::ui {

AutotuneComparePanel::AutotuneComparePanel(JobRunner* jobs, QWidget* parent)
    : QWidget(parent),
      jobs_(jobs ? jobs : new JobRunner(this)),
      model_(new AutotuneCompareModel(this)),
      chart_(new CompareChart(this)),
      sources_(new QListWidget(this)),
      table_(new QTableView(this)),
      log_(new QCheckBox(tr("Log scale"), this)),
      status_(new QLabel(tr("Add two or more timing files or cache roots (one per machine)."), this)),
      pages_(new QStackedWidget(this)),
      empty_(new QLabel(this)) {
    setObjectName(QStringLiteral("comparePanel"));
    auto* bar = new QToolBar(this);
    bar->addAction(tr("Add timings…"), this, &AutotuneComparePanel::addDialog);
    bar->addAction(tr("Clear"), this, &AutotuneComparePanel::clearSources);
    bar->addSeparator();
    bar->addWidget(log_);
    addExportActions(
        bar, status_, QStringLiteral("compare"), [this](const QString& p) { return exportChart(p); },
        [this](const QString& p) { return exportData(p); });

    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(model_);
    proxy->setSortRole(AutotuneCompareModel::SortRole);
    table_->setModel(proxy);
    table_->setSortingEnabled(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    sources_->setMaximumHeight(90);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(table_);
    split->addWidget(chart_);
    split->setStretchFactor(1, 2);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(bar);
    lay->addWidget(sources_);
    auto* emptyPage = new QWidget(this);
    auto* emptyLay = new QVBoxLayout(emptyPage);
    empty_->setWordWrap(true);
    empty_->setTextFormat(Qt::RichText);
    auto* add = new QPushButton(tr("Add a second timing source…"), emptyPage);
    add->setObjectName(QStringLiteral("addSecondSource"));
    connect(add, &QPushButton::clicked, this, &AutotuneComparePanel::addDialog);
    emptyLay->addStretch(1);
    emptyLay->addWidget(empty_, 0, Qt::AlignHCenter);
    emptyLay->addWidget(add, 0, Qt::AlignHCenter);
    emptyLay->addStretch(2);
    pages_->addWidget(emptyPage);
    pages_->addWidget(split);
    lay->addWidget(pages_, 1);
    lay->addWidget(status_);

    connect(log_, &QCheckBox::toggled, chart_, &CompareChart::setLogScale);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this, proxy](const QModelIndex& cur) { selectOp(proxy->mapToSource(cur).row()); });
}

bool AutotuneComparePanel::isLoading() const { return pending_ > 0 || (shared_ && shared_->isLoading()); }

void AutotuneComparePanel::addSource(const QString& path) {
    ++pending_;
    status_->setText(tr("Reading %1…").arg(path));
    struct Outcome {
        std::vector<Device> devices;
        QString error;
    };
    // Each source has its own channel: adding a second machine must not cancel the first.
    jobs_->start(
        QStringLiteral("compare:") + path, tr("Reading timings"),
        [path](JobControl&) {
            auto r = timings::collect_timings({std::filesystem::path(path.toStdString())});
            if (!r.ok()) return Outcome{{}, QString::fromStdString(r.error().str())};
            auto set = std::make_shared<const timings::TimingSet>(std::move(r).value());
            return Outcome{devicesOf(std::move(set), QFileInfo(path).fileName().toStdString()), QString()};
        },
        [this, path](Outcome out) {
            --pending_;
            if (!out.error.isEmpty()) {
                status_->setText(out.error);
                return;
            }
            addShared(std::move(out.devices), path);
        });
}

void AutotuneComparePanel::addShared(std::vector<Device> devices, const QString& path,
                                     std::shared_ptr<const timings::Comparison> ready) {
    for (const auto& d : devices)
        sources_->addItem(QStringLiteral("%1  —  %2").arg(QString::fromStdString(d.label), path));
    appendDevices(std::move(devices), std::move(ready));
}

void AutotuneComparePanel::addDevices(std::vector<timings::DeviceTimings> devices) {
    std::vector<Device> own;
    for (auto& d : devices) {
        auto set = std::make_shared<timings::TimingSet>(std::move(d.set));
        std::vector<std::uint32_t> all(set->ops.size());
        for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
        own.push_back({std::move(d.label), std::move(set), std::move(all)});
    }
    appendDevices(std::move(own));
}

void AutotuneComparePanel::appendDevices(std::vector<Device> devices,
                                         std::shared_ptr<const timings::Comparison> ready) {
    // A comparison made of these devices alone holds when nothing else is loaded (no label renumbered).
    if (!devices_.empty()) ready.reset();
    for (auto& d : devices) {
        // Two machines with the same GPU model: keep them apart by numbering the label.
        std::string label = d.label;
        int k = 2;
        auto taken = [&](const std::string& l) {
            return std::any_of(devices_.begin(), devices_.end(), [&](const auto& x) { return x.label == l; });
        };
        while (taken(label)) label = d.label + " #" + std::to_string(k++);
        d.label = label;
        devices_.push_back(std::move(d));
    }
    recompute(std::move(ready));
}

void AutotuneComparePanel::loadRoot(const QString& root) {
    root_ = root;
    clearSources();
    if (shared_) shared_->request();  // its loaded() adds the root's devices
    else addSource(root);
}

void AutotuneComparePanel::followRootTimings(RootTimings* shared) {
    shared_ = shared;
    connect(shared, &RootTimings::loaded, this, [this](const std::shared_ptr<const RootTimingsResult>& r) {
        if (r->root != root_ || (rootSet_ && r->set == rootSet_)) return;  // shown already (another asker's copy)
        // The root's devices replace those of its last read; sources the user added stay.
        const QString suffix = QStringLiteral("  —  ") + root_;
        for (int i = sources_->count() - 1; i >= 0; --i)
            if (sources_->item(i)->text().endsWith(suffix)) delete sources_->takeItem(i);
        devices_.erase(
            std::remove_if(devices_.begin(), devices_.end(), [&](const Device& d) { return d.set == rootSet_; }),
            devices_.end());
        rootSet_ = r->set;
        if (!r->error.isEmpty()) status_->setText(r->error);
        addShared(r->devices, root_, r->comparison);
    });
}

void AutotuneComparePanel::clearSources() {
    devices_.clear();
    rootSet_.reset();
    sources_->clear();
    recompute();
}

void AutotuneComparePanel::recompute(std::shared_ptr<const timings::Comparison> ready) {
    // One device compares with nothing: its ops are not copied.
    if (ready) model_->setComparison(std::move(ready));
    else model_->setComparison(devices_.size() < 2 ? timings::Comparison{} : timings::compare_devices(deviceTimings()));
    const int n = model_->rowCount();
    const auto& cmp = model_->comparison();
    int differs = 0;
    for (const auto& op : cmp.ops) differs += op.winner_differs;
    status_->setText(
        devices_.size() < 2
            ? tr("%1 device(s) loaded; add another to compare.").arg(devices_.size())
            : tr("%1 ops on %2 devices; the winner differs for %3.").arg(n).arg(devices_.size()).arg(differs));
    empty_->setText(devices_.empty()
                        ? tr("<h3>No timings to compare</h3><p>Compare devices puts the autotune results of two "
                             "machines side by side: each device's best choice per op, the speed-up and whether the "
                             "winner differs.</p><p>Add a cache root or timing folder from each machine (one is "
                             "enough when it holds both devices' timing caches).</p>")
                        : tr("<h3>One device: %1</h3><p>Add a second timing source (a cache root or timing "
                             "folder from another machine) to compare with it.</p>")
                              .arg(QString::fromStdString(devices_.front().label).toHtmlEscaped()));
    pages_->setCurrentIndex(devices_.size() < 2 ? 0 : 1);
    // Headers (the device on a line of its own) and winners (their config on a second line) read in
    // full; only the inputs may be elided (their tooltip has them whole).
    table_->resizeColumnsToContents();
    table_->resizeRowsToContents();
    table_->setColumnWidth(1, std::min(table_->columnWidth(1), 240));
    if (n > 0) table_->selectRow(0);
    else chart_->clear();
    if (n > 0) selectOp(0);
    emit compared(n);
}

void AutotuneComparePanel::selectOp(int row) {
    const auto& cmp = model_->comparison();
    if (row < 0 || row >= static_cast<int>(cmp.ops.size())) return;
    chart_->setOp(cmp.ops[static_cast<size_t>(row)], cmp.devices);
}

QString AutotuneComparePanel::exportChart(const QString& path) const { return exportPlot(chart_->plot(), path); }
QString AutotuneComparePanel::exportData(const QString& path) const { return writeChartTable(model_->table(), path); }

void AutotuneComparePanel::addDialog() {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Add a cache root or timing folder"));
    if (!path.isEmpty()) addSource(path);
}

}  // namespace kiln::ui
