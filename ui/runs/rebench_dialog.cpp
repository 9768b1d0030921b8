#include "ui/runs/rebench_dialog.hpp"

#include <qcustomplot.h>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

#include "ui/charts/chart_style.hpp"
#include "ui/jobs/job_runner.hpp"
#include "ui/theme/palette.hpp"

namespace kiln::ui {

namespace {
// Series s: the stored times grey, then each device in the theme's series colours.
QColor seriesColor(const QPalette& p, int s) {
    const auto& theme = themeColors(p).series;
    const QColor colors[] = {theme[5], theme[0], theme[1], theme[2]};
    return colors[s % 4];
}
}  // namespace

RebenchDialog::RebenchDialog(const QString& modulePath, const QString& cacheRoot, JobRunner* jobs, QWidget* parent)
    : QDialog(parent),
      module_(modulePath),
      jobs_(jobs),
      storedChannel_(QStringLiteral("rebench-stored-%1").arg(reinterpret_cast<quintptr>(this))),
      loadChannel_(QStringLiteral("rebench-load-%1").arg(reinterpret_cast<quintptr>(this))),
      controller_(new RebenchController(this)),
      devices_(new QLineEdit(this)),
      run_(new QPushButton(tr("Run…"), this)),
      load_(new QPushButton(tr("Load results…"), this)),
      status_(new QLabel(this)),
      plot_(new QCustomPlot(this)) {
    setWindowTitle(tr("Re-benchmark %1").arg(QFileInfo(modulePath).fileName()));
    devices_->setPlaceholderText(tr("GPUs, e.g. 0,1 (default: every visible GPU)"));
    auto* form = new QFormLayout;
    form->addRow(tr("Module"), new QLabel(modulePath, this));
    form->addRow(tr("Devices"), devices_);
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(form);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(run_);
    buttons->addWidget(load_);
    load_->setToolTip(tr("Open the output of `kiln-cli rebench MODULE --json [--kernels]` saved on another machine"));
    lay->addLayout(buttons);
    lay->addWidget(status_);
    lay->addWidget(plot_, 1);
    status_->setWordWrap(true);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->legend->setVisible(true);
    plot_->xAxis->setLabel(tr("time (ms)"));
    plot_->yAxis->setRangeReversed(true);
    followPalette(plot_, [this] {
        for (int i = 0; i < plot_->plottableCount(); ++i)
            plot_->plottable(i)->setBrush(seriesColor(plot_->palette(), i));
    });
    resize(900, 640);
    connect(run_, &QPushButton::clicked, this, &RebenchDialog::confirmAndRun);
    connect(load_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Load re-benchmark results"), QString(),
                                                          tr("kiln-cli rebench --json output (*.json);;All files (*)"));
        if (!path.isEmpty()) loadResultsFile(path);
    });
    connect(controller_, &RebenchController::stageChanged, status_, &QLabel::setText);
    connect(controller_, &RebenchController::finished, this, [this](bool ok, const QString& msg) {
        run_->setEnabled(true);
        QStringList failures;
        for (const auto& d : controller_->results())
            if (!d.ok) failures << QStringLiteral("%1: %2 %3").arg(d.device, d.status, d.reason);
        status_->setText((ok ? tr("Done.") : tr("Failed: %1").arg(msg)) +
                         (failures.isEmpty() ? QString() : QLatin1Char('\n') + failures.join(QLatin1Char('\n'))));
        showResults();
    });
    showResults();
    loadStoredTimes(cacheRoot);
}

RebenchDialog::~RebenchDialog() {
    jobs_->cancel(storedChannel_);
    jobs_->cancel(loadChannel_);
}

void RebenchDialog::loadStoredTimes(const QString& cacheRoot) {
    QPointer<RebenchDialog> self(this);
    jobs_->start(
        storedChannel_, tr("Reading stored kernel times"),
        [root = cacheRoot.toStdString()](JobControl& ctl) {
            return timings::read_stored_kernel_times(root, ctl.cancelFlag());
        },
        [self](Result<timings::StoredKernelTimes> r) {
            if (!self) return;
            self->storedPending_ = false;
            if (r.ok()) self->stored_ = std::move(r).value();
            else self->storedError_ = QString::fromStdString(r.error().str());
            if (!self->storedError_.isEmpty())
                self->status_->setText(tr("No stored times: %1").arg(self->storedError_));
            self->showResults();
            emit self->storedTimesLoaded(self->storedError_);
        });
}

bool RebenchDialog::confirmAndRun() {
    const auto answer = QMessageBox::warning(
        this, tr("Run this module's code?"),
        tr("Re-benchmarking executes %1 — Python code from the cache — with your Python and torch, "
           "in one worker process per device. Only continue if you trust where this cache came from.")
            .arg(QFileInfo(module_).fileName()),
        QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes) return false;
    const QString err = controller_->start(module_, devices_->text().trimmed());
    if (!err.isEmpty()) {
        status_->setText(err);
        return true;
    }
    run_->setEnabled(false);
    return true;
}

void RebenchDialog::loadResultsFile(const QString& path) {
    QPointer<RebenchDialog> self(this);
    status_->setText(tr("Reading %1 …").arg(path));
    jobs_->start(
        loadChannel_, tr("Reading re-benchmark results"),
        [p = path.toStdString()](JobControl&) { return tuning::read_rebench_report(p); },
        [self, path](Result<tuning::RebenchReport> r) {
            if (!self) return;
            QString err = r.ok() ? self->controller_->loadReport(*r) : QString::fromStdString(r.error().str());
            if (r.ok() && !err.isEmpty()) err = tr("%1: %2").arg(path, err);
            if (err.isEmpty()) self->showResults();
            self->status_->setText(err.isEmpty() ? tr("Loaded %1").arg(path) : err);
            emit self->resultsLoaded(err);
        });
}

void RebenchDialog::showResults() {
    plot_->clearPlottables();
    // Rows: the graph, then every kernel seen on any device or stored in the cache for it.
    QStringList& rows = rows_;
    rows = QStringList{tr("(graph)")};
    for (const auto& d : controller_->results())
        for (auto it = d.kernelMs.begin(); it != d.kernelMs.end(); ++it)
            if (!rows.contains(it.key())) rows << it.key();
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (int i = 0; i < rows.size(); ++i) ticker->addTick(i, rows[i]);
    plot_->yAxis->setTicker(ticker);
    auto* group = new QCPBarsGroup(plot_);
    const int series = static_cast<int>(controller_->results().size()) + 1;
    auto addSeries = [&](const QString& name, int s, auto valueOf) {
        auto* bars = new QCPBars(plot_->yAxis, plot_->xAxis);
        bars->setName(name);
        bars->setBrush(seriesColor(plot_->palette(), s));
        bars->setWidth(0.8 / series);
        bars->setBarsGroup(group);
        for (int i = 0; i < rows.size(); ++i)
            if (double v = valueOf(i); v >= 0) bars->addData(i, v);
    };
    // The stored time of a kernel: found through any device's key for it (keys are per module).
    auto stored = [&](int i) {
        if (i == 0) return -1.0;
        for (const auto& d : controller_->results())
            if (double v = storedTimeFor(d, rows[i], stored_); v >= 0) return v;
        return timings::stored_time_for(stored_, rows[i].toStdString(), {}).value_or(-1.0);
    };
    addSeries(tr("stored in cache"), 0, stored);
    int s = 1;
    for (const auto& d : controller_->results())
        addSeries(d.device, s++, [&](int i) { return i == 0 ? d.graphMs : d.kernelMs.value(rows[i], -1.0); });
    plot_->rescaleAxes();
    plot_->xAxis->setRange(0, plot_->xAxis->range().upper * 1.1);  // room for the longest bar's end
    plot_->yAxis->setRange(-0.6, rows.size() - 0.4);
    plot_->replot();
}

}  // namespace kiln::ui
