#include "ui/tuning/timings_compile_panel.hpp"

#include "ui/browser/cache_tree.hpp"

#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include "trace/compile_timeline.hpp"
#include "ui/charts/chart_export.hpp"
#include "ui/charts/compile_time_chart.hpp"
#include "ui/common/qt_string.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/tuning/compile_entries_model.hpp"

namespace kiln::ui {

namespace {

// The compile-time cell as a bar (its share of the slowest), in the palette's highlight colour.
class BarDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    double max = 0;
    void paint(QPainter* p, const QStyleOptionViewItem& opt, const QModelIndex& idx) const override {
        const double s = idx.data(CompileEntriesModel::SortRole).toDouble();
        if (max > 0 && s > 0) {
            QRect r = opt.rect.adjusted(2, 3, -2, -3);
            r.setWidth(std::max(1, int(r.width() * (s / max))));
            QColor c = opt.palette.color(QPalette::Highlight);
            c.setAlpha(110);
            p->fillRect(r, c);
        }
        QStyledItemDelegate::paint(p, opt, idx);
    }
};

}  // namespace

TimingsCompilePanel::TimingsCompilePanel(JobRunner* jobs, QWidget* parent)
    : QWidget(parent),
      jobs_(jobs ? jobs : new JobRunner(this)),
      chart_(new CompileTimeChart(this)),
      model_(new CompileEntriesModel(this)),
      entries_(new QTreeView(this)),
      status_(new QLabel(this)) {
    setObjectName(QStringLiteral("compileTimePanel"));
    auto* bar = new QToolBar(this);
    addExportActions(
        bar, status_, QStringLiteral("compile-times"),
        [this](const QString& p) { return exportPlot(chart_->plot(), p); },
        [this](const QString& p) { return writeChartTable(chart_->table(), p); });
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(bar);
    entries_->setModel(model_);
    entries_->setRootIsDecorated(false);
    entries_->setSortingEnabled(true);
    entries_->setAlternatingRowColors(true);
    entries_->setUniformRowHeights(true);
    entries_->setItemDelegateForColumn(1, new BarDelegate(entries_));
    entries_->setToolTip(tr("Click a header to sort; Enter or double-click selects the entry in the cache browser."));
    connect(entries_, &QTreeView::activated, this, [this](const QModelIndex& i) {
        const QString path = i.siblingAtColumn(0).data(PathRole).toString();
        if (!path.isEmpty()) emit entryActivated(path);
    });
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(entries_);
    split->addWidget(chart_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    lay->addWidget(split, 1);
    lay->addWidget(status_);
}

bool TimingsCompilePanel::isLoading() const { return jobs_->isRunning(QStringLiteral("compile-times")); }

void TimingsCompilePanel::loadRoot(const QString& root) {
    status_->setText(tr("Reading graph entries…"));
    struct Outcome {
        timings::CompileTimes data;
        std::vector<CompileEntryRow> rows;
        QString error;
    };
    jobs_->start(
        QStringLiteral("compile-times"), tr("Reading compile times"),
        [root](JobControl& ctl) {
            auto r = timings::read_compile_times(root.toStdString(), ctl.cancelFlag());
            if (!r.ok()) return Outcome{{}, {}, QString::fromStdString(r.error().str())};
            auto rows = compileEntryRows(*r, trace::frames_beside_root(root.toStdString()));
            return Outcome{std::move(r).value(), std::move(rows), QString()};
        },
        [this](Outcome out) {
            const auto graphs = out.data.graphs.size(), errors = out.data.errors.size();
            chart_->setData(std::move(out.data));
            fillEntries(std::move(out.rows));
            if (!out.error.isEmpty()) status_->setText(out.error);
            else
                status_->setText(
                    tr("%1 graphs with a compile time; %2 entries did not decode").arg(graphs).arg(errors));
            emit loaded(static_cast<int>(graphs));
        });
}

void TimingsCompilePanel::loadScan(std::shared_ptr<const CacheTree> tree) {
    if (!tree) return;
    status_->setText(tr("Reading graph entries…"));
    jobs_->start(
        QStringLiteral("compile-times"), tr("Reading compile times"),
        [tree](JobControl& ctl) {
            auto data = timings::compile_times_of(tree->scan(), ctl.cancelFlag());
            auto rows = compileEntryRows(data, trace::frames_beside_root(tree->scan().root));
            return Loaded{std::move(data), std::move(rows)};
        },
        [this](Loaded out) { present(std::move(out)); });
}

void TimingsCompilePanel::showCompileTimes(std::shared_ptr<const CacheTree> tree,
                                           std::shared_ptr<const timings::CompileTimes> data) {
    if (!tree || !data) return;
    jobs_->start(
        QStringLiteral("compile-times"), tr("Listing compile times"),
        [tree, data](JobControl&) {
            auto rows = compileEntryRows(*data, trace::frames_beside_root(tree->scan().root));
            return Loaded{*data, std::move(rows)};
        },
        [this](Loaded out) { present(std::move(out)); });
}

void TimingsCompilePanel::present(Loaded out) {
    const auto graphs = out.data.graphs.size(), errors = out.data.errors.size();
    chart_->setData(std::move(out.data));
    fillEntries(std::move(out.rows));
    status_->setText(tr("%1 graphs with a compile time; %2 entries did not decode").arg(graphs).arg(errors));
    emit loaded(static_cast<int>(graphs));
}

void TimingsCompilePanel::fillEntries(std::vector<CompileEntryRow> rows) {
    model_->setRows(std::move(rows));
    static_cast<BarDelegate*>(entries_->itemDelegateForColumn(1))->max = model_->maxSeconds();
    entries_->sortByColumn(CompileEntriesModel::TimeColumn, Qt::DescendingOrder);
    entries_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    entries_->header()->resizeSection(1, 360);
}

}  // namespace kiln::ui
