#include "ui/tuning/timings_panel.hpp"

#include <QCheckBox>
#include <QFileDialog>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

#include "frontend/open_cache.hpp"
#include "timings/collect.hpp"
#include "timings/ranking.hpp"
#include "timings/used_by.hpp"
#include "ui/charts/chart_export.hpp"
#include "ui/charts/choice_bar_chart.hpp"
#include "ui/charts/choice_bars.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/tuning/autotune_table_model.hpp"
#include "ui/tuning/root_timings.hpp"

namespace kiln::ui {

namespace {
// Sorts the choices inside each op by the clicked column; the op groups keep the sources' order
// whichever way the column sorts (their SortRole is their index).
class GroupSortProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex& l, const QModelIndex& r) const override {
        if (!l.parent().isValid()) {
            const int a = l.data(AutotuneTableModel::OpIndexRole).toInt();
            const int b = r.data(AutotuneTableModel::OpIndexRole).toInt();
            return sortOrder() == Qt::AscendingOrder ? a < b : a > b;
        }
        return QSortFilterProxyModel::lessThan(l, r);
    }
};
}  // namespace

TimingsPanel::TimingsPanel(JobRunner* jobs, QWidget* parent)
    : QWidget(parent),
      jobs_(jobs ? jobs : new JobRunner(this)),
      model_(new AutotuneTableModel(this)),
      proxy_(new GroupSortProxy(this)),
      chart_(new ChoiceBarChart(this)),
      ops_(new QListWidget(this)),
      table_(new QTreeView(this)),
      log_(new QCheckBox(tr("Log scale"), this)),
      status_(new QLabel(this)) {
    setObjectName(QStringLiteral("timingsPanel"));
    auto* bar = new QToolBar(this);
    bar->addAction(tr("Open files…"), this, &TimingsPanel::openFiles);
    bar->addAction(tr("Open folder…"), this, &TimingsPanel::openFolder);
    bar->addSeparator();
    bar->addWidget(log_);
    addExportActions(
        bar, status_, QStringLiteral("autotune"), [this](const QString& p) { return exportChart(p); },
        [this](const QString& p) { return exportData(p); });
    bar->addSeparator();
    bar->addAction(tr("New session…"), this, &TimingsPanel::launchRequested);
    bar->addAction(tr("Re-tune on this machine…"), this, &TimingsPanel::retuneRequested);

    proxy_->setSourceModel(model_);
    proxy_->setSortRole(AutotuneTableModel::SortRole);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(AutotuneTableModel::MsCol, Qt::AscendingOrder);
    table_->setObjectName(QStringLiteral("autotuneTable"));
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setUniformRowHeights(true);
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideRight);  // long names and parameters: the tooltip has them whole
    table_->header()->setStretchLastSection(true);
    table_->setAlternatingRowColors(true);

    auto* right = new QSplitter(Qt::Vertical, this);
    right->addWidget(chart_);
    right->addWidget(table_);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(ops_);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setSizes({300, 900});

    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(bar);
    lay->addWidget(split, 1);
    lay->addWidget(status_);

    connect(ops_, &QListWidget::currentRowChanged, this, &TimingsPanel::selectOp);
    connect(log_, &QCheckBox::toggled, chart_, &ChoiceBarChart::setLogScale);
    connect(chart_, &ChoiceBarChart::choiceClicked, this, [this](const QString&, const QString& module) {
        if (!module.isEmpty()) emit moduleSelected(module);
    });
    connect(table_, &QTreeView::activated, this, &TimingsPanel::onRowActivated);
    connect(table_->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& i) {
        if (i.isValid()) selectOp(i.data(AutotuneTableModel::OpIndexRole).toInt());
    });
    // Every reset (a new load) loses the spans: each op's heading gets the full width again.
    connect(proxy_, &QAbstractItemModel::modelReset, this, &TimingsPanel::spanOpRows);
    connect(proxy_, &QAbstractItemModel::layoutChanged, this, &TimingsPanel::spanOpRows);
}

bool TimingsPanel::isLoading() const {
    return jobs_->isRunning(QStringLiteral("timings")) || (shared_ && shared_->isLoading());
}

void TimingsPanel::followRootTimings(RootTimings* shared) {
    shared_ = shared;
    connect(shared, &RootTimings::loaded, this, [this](const std::shared_ptr<const RootTimingsResult>& r) {
        if (r->set == model_->timings()) return;   // shown already (the set handed again to another asker)
        jobs_->cancel(QStringLiteral("timings"));  // the root's set replaces files opened before it came
        paths_ = {r->root};
        showLoaded(r->set, r->texts, r->error);
    });
}

void TimingsPanel::showLoaded(std::shared_ptr<const timings::TimingSet> set, OpListTexts texts, const QString& error) {
    showSet(set, std::move(texts));
    if (!error.isEmpty()) status_->setText(error);
    emit loaded(static_cast<int>(set->ops.size()));
}

void TimingsPanel::load(const QStringList& paths) {
    paths_ = paths;
    status_->setText(tr("Reading timings…"));
    std::vector<std::filesystem::path> p;
    for (const auto& s : paths) p.emplace_back(s.toStdString());
    struct Outcome {
        std::shared_ptr<const timings::TimingSet> set;
        OpListTexts texts;
        QString error;
    };
    jobs_->start(
        QStringLiteral("timings"), tr("Reading timings"),
        [p](JobControl&) {
            auto r = timings::collect_timings(p);
            if (!r.ok())
                return Outcome{std::make_shared<timings::TimingSet>(), {}, QString::fromStdString(r.error().str())};
            // "used by graph ...": the graph entries of the roots its timing caches are in (opened the one
            // way, read through their descriptors), read here, off the UI thread.
            const auto roots = frontend::open_each(timings::roots_with_graphs(*r));
            if (auto marks = timings::mark_used_by(*r, frontend::opened_roots(roots)); !marks.ok())
                r->warnings.push_back(marks.error().str());
            auto set = std::make_shared<const timings::TimingSet>(std::move(r).value());
            OpListTexts texts = opListTexts(*set);
            return Outcome{std::move(set), std::move(texts), QString()};
        },
        [this](Outcome out) { showLoaded(std::move(out.set), std::move(out.texts), out.error); });
}

void TimingsPanel::setTimings(std::shared_ptr<const timings::TimingSet> set) {
    OpListTexts texts = opListTexts(*set);
    showSet(std::move(set), std::move(texts));
}

void TimingsPanel::showSet(std::shared_ptr<const timings::TimingSet> set, OpListTexts texts) {
    usedByTexts_ = std::move(texts.usedBy);
    model_->setTimings(set);
    ops_->clear();
    ops_->addItems(texts.ops);  // one insertion, not one per op
    status_->setText(
        tr("%1 ops from %2 sources").arg(set->ops.size()).arg(set->sources.size()) +
        (set->warnings.empty()
             ? QString()
             : tr("; %1 unreadable: %2").arg(set->warnings.size()).arg(QString::fromStdString(set->warnings.front()))));
    current_ = -1;
    if (!set->ops.empty()) ops_->setCurrentRow(0);
    else chart_->clear();
}

void TimingsPanel::selectOp(int index) {
    auto set = model_->timings();
    if (!set || index < 0 || index >= static_cast<int>(set->ops.size())) return;
    if (ops_->currentRow() != index) ops_->setCurrentRow(index);
    if (current_ == index) return;
    current_ = index;
    chart_->setOp(set->ops[static_cast<size_t>(index)]);
    // The op's group open, the others closed: each closed heading still says its winner.
    const QModelIndex group = proxy_->mapFromSource(model_->opIndex(index));
    table_->collapseAll();
    table_->expand(group);
    if (!table_->currentIndex().isValid() ||
        table_->currentIndex().data(AutotuneTableModel::OpIndexRole).toInt() != index)
        table_->setCurrentIndex(group);
    table_->scrollTo(group, QAbstractItemView::PositionAtTop);
}

void TimingsPanel::spanOpRows() {
    for (int r = 0; r < proxy_->rowCount(); ++r) table_->setFirstColumnSpanned(r, {}, true);
    // Room for a starred choice name with its config (choice_display_name) and the times; the parameters take the rest.
    QFont bold = table_->font();
    bold.setBold(true);  // the winner's row
    const QFontMetrics fm(bold);
    table_->header()->resizeSection(
        AutotuneTableModel::ChoiceCol,
        table_->indentation() +
            fm.horizontalAdvance(QStringLiteral("★ triton_mm_18 (BLOCK 128×128×64, 5 stages, 8 warps)")));
    table_->header()->resizeSection(AutotuneTableModel::MsCol, fm.horizontalAdvance(QStringLiteral("0.00000 msXX")));
    table_->header()->resizeSection(AutotuneTableModel::PercentCol,
                                    fm.horizontalAdvance(QStringLiteral("% of bestXXX")));
    // "used by graph mm (model.py:94)" whole: the answer to "what runs", read at first sight.
    int usedBy = fm.horizontalAdvance(model_->headerData(AutotuneTableModel::UsedByCol, Qt::Horizontal).toString());
    for (const auto& text : usedByTexts_) usedBy = std::max(usedBy, fm.horizontalAdvance(text));
    table_->header()->resizeSection(AutotuneTableModel::UsedByCol,
                                    std::min(usedBy + fm.horizontalAdvance(QStringLiteral("XXX")), 420));
}

void TimingsPanel::onRowActivated(const QModelIndex& proxyIndex) {
    const QString module = proxyIndex.data(AutotuneTableModel::ModulePathRole).toString();
    if (!module.isEmpty()) emit moduleSelected(module);
}

QString TimingsPanel::exportChart(const QString& path) const { return exportPlot(chart_->plot(), path); }
QString TimingsPanel::exportData(const QString& path) const {
    return writeChartTable(choiceBarsTable(chart_->bars()), path);
}

void TimingsPanel::openFiles() {
    const QStringList files = QFileDialog::getOpenFileNames(this, tr("Open timing files"));
    if (!files.isEmpty()) load(files);
}

void TimingsPanel::openFolder() {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a cache root or log folder"));
    if (!dir.isEmpty()) load({dir});
}

}  // namespace kiln::ui
