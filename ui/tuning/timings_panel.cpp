#include "tuning/timings_panel.hpp"

#include <QCheckBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include "charts/chart_export.hpp"
#include "charts/choice_bar_chart.hpp"
#include "jobs/job_runner.hpp"
#include "timings/collect.hpp"
#include "tuning/autotune_table_model.hpp"

namespace kiln::ui {

namespace {
// Rows of one op only (OpIndexRole), or all rows when the filter is -1.
class OpFilterProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setOp(int op) {
        op_ = op;
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
        if (op_ < 0) return true;
        return sourceModel()->index(row, 0, parent).data(AutotuneTableModel::OpIndexRole).toInt() == op_;
    }

private:
    int op_ = -1;
};
}  // namespace

TimingsPanel::TimingsPanel(JobRunner* jobs, QWidget* parent)
    : QWidget(parent),
      jobs_(jobs ? jobs : new JobRunner(this)),
      model_(new AutotuneTableModel(this)),
      proxy_(new OpFilterProxy(this)),
      chart_(new ChoiceBarChart(this)),
      ops_(new QListWidget(this)),
      table_(new QTableView(this)),
      log_(new QCheckBox(tr("Log scale"), this)),
      status_(new QLabel(this)) {
    setObjectName(QStringLiteral("timingsPanel"));
    auto* bar = new QToolBar(this);
    bar->addAction(tr("Open files…"), this, &TimingsPanel::openFiles);
    bar->addAction(tr("Open folder…"), this, &TimingsPanel::openFolder);
    bar->addSeparator();
    bar->addWidget(log_);
    bar->addAction(tr("Export chart…"), this, &TimingsPanel::exportChartDialog);
    bar->addAction(tr("Export data…"), this, &TimingsPanel::exportDataDialog);
    bar->addSeparator();
    bar->addAction(tr("New session…"), this, &TimingsPanel::launchRequested);

    proxy_->setSourceModel(model_);
    proxy_->setSortRole(AutotuneTableModel::SortRole);
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(AutotuneTableModel::MsCol, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->hide();
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
    connect(table_, &QTableView::activated, this, &TimingsPanel::onRowActivated);
}

bool TimingsPanel::isLoading() const { return jobs_->isRunning(QStringLiteral("timings")); }

void TimingsPanel::load(const QStringList& paths) {
    paths_ = paths;
    status_->setText(tr("Reading timings…"));
    std::vector<std::filesystem::path> p;
    for (const auto& s : paths) p.emplace_back(s.toStdString());
    struct Outcome {
        std::shared_ptr<const timings::TimingSet> set;
        QString error;
    };
    jobs_->start(
        QStringLiteral("timings"), tr("Reading timings"),
        [p](JobControl&) {
            auto r = timings::collect_timings(p);
            if (!r.ok())
                return Outcome{std::make_shared<timings::TimingSet>(), QString::fromStdString(r.error().str())};
            return Outcome{std::make_shared<const timings::TimingSet>(std::move(r).value()), QString()};
        },
        [this](Outcome out) {
            setTimings(out.set);
            if (!out.error.isEmpty()) status_->setText(out.error);
            emit loaded(static_cast<int>(out.set->ops.size()));
        });
}

void TimingsPanel::setTimings(std::shared_ptr<const timings::TimingSet> set) {
    model_->setTimings(set);
    ops_->clear();
    for (const auto& op : set->ops) {
        auto best = timings::best_ms(op);
        QString text = QString::fromStdString(op.op + "  " + op.inputs);
        if (!op.device.empty()) text += QStringLiteral("\n  ") + QString::fromStdString(op.device);
        text += QStringLiteral("\n  %1 choices").arg(op.choices.size());
        if (best) text += tr(", best %1 ms").arg(*best, 0, 'g', 4);
        ops_->addItem(text);
    }
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
    current_ = index;
    if (ops_->currentRow() != index) ops_->setCurrentRow(index);
    static_cast<OpFilterProxy*>(proxy_)->setOp(index);
    chart_->setOp(set->ops[static_cast<size_t>(index)]);
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

void TimingsPanel::exportChartDialog() {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export chart"), QStringLiteral("autotune.png"), plotFileFilter());
    if (path.isEmpty()) return;
    const QString err = exportChart(path);
    status_->setText(err.isEmpty() ? tr("Wrote %1").arg(path) : err);
}

void TimingsPanel::exportDataDialog() {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export data"), QStringLiteral("autotune.csv"), dataFileFilter());
    if (path.isEmpty()) return;
    const QString err = exportData(path);
    status_->setText(err.isEmpty() ? tr("Wrote %1").arg(path) : err);
}

}  // namespace kiln::ui
