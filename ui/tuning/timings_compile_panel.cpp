#include "tuning/timings_compile_panel.hpp"

#include <QFileDialog>
#include <QLabel>
#include <QToolBar>
#include <QVBoxLayout>

#include "charts/chart_export.hpp"
#include "charts/compile_time_chart.hpp"
#include "jobs/job_runner.hpp"

namespace kiln::ui {

TimingsCompilePanel::TimingsCompilePanel(JobRunner* jobs, QWidget* parent)
    : QWidget(parent),
      jobs_(jobs ? jobs : new JobRunner(this)),
      chart_(new CompileTimeChart(this)),
      status_(new QLabel(this)) {
    setObjectName(QStringLiteral("compileTimePanel"));
    auto* bar = new QToolBar(this);
    bar->addAction(tr("Export chart…"), this, &TimingsCompilePanel::exportChartDialog);
    bar->addAction(tr("Export data…"), this, &TimingsCompilePanel::exportDataDialog);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(bar);
    lay->addWidget(chart_, 1);
    lay->addWidget(status_);
}

bool TimingsCompilePanel::isLoading() const { return jobs_->isRunning(QStringLiteral("compile-times")); }

void TimingsCompilePanel::loadRoot(const QString& root) {
    status_->setText(tr("Reading graph entries…"));
    struct Outcome {
        timings::CompileTimes data;
        QString error;
    };
    jobs_->start(
        QStringLiteral("compile-times"), tr("Reading compile times"),
        [root](JobControl& ctl) {
            auto r = timings::read_compile_times(root.toStdString(), ctl.cancelFlag());
            if (!r.ok()) return Outcome{{}, QString::fromStdString(r.error().str())};
            return Outcome{std::move(r).value(), QString()};
        },
        [this](Outcome out) {
            chart_->setData(out.data);
            if (!out.error.isEmpty()) status_->setText(out.error);
            else
                status_->setText(tr("%1 graphs with a compile time; %2 entries did not decode")
                                     .arg(out.data.graphs.size())
                                     .arg(out.data.errors.size()));
            emit loaded(static_cast<int>(out.data.graphs.size()));
        });
}

void TimingsCompilePanel::exportChartDialog() {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export chart"), QStringLiteral("compile-times.png"), plotFileFilter());
    if (path.isEmpty()) return;
    const QString err = exportPlot(chart_->plot(), path);
    status_->setText(err.isEmpty() ? tr("Wrote %1").arg(path) : err);
}

void TimingsCompilePanel::exportDataDialog() {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export data"), QStringLiteral("compile-times.csv"), dataFileFilter());
    if (path.isEmpty()) return;
    const QString err = writeChartTable(chart_->table(), path);
    status_->setText(err.isEmpty() ? tr("Wrote %1").arg(path) : err);
}

}  // namespace kiln::ui
